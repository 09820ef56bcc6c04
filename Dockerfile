# nsvm serve in a container: a static binary on an empty base image,
# running as an unprivileged user. Build with
#   docker build -t nsvm .
# and run with a model mounted at /mnt/models (where KServe puts it):
#   docker run -p 8080:8080 -v $PWD/models:/mnt/models nsvm --model /mnt/models/model.nsvm --name model
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/nsvm ./cmd/nsvm

FROM scratch
COPY --from=build /out/nsvm /nsvm
# 65532: the conventional unprivileged user of minimal images.
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["/nsvm", "serve", "--addr", ":8080"]
CMD ["--model", "/mnt/models/model.nsvm"]
