// Package nn is the small neural engine behind the NSVM feature map F_θ
// (paper §3–§5): feed-forward networks that run forward on a batch and
// backpropagate a given cotangent ∂L/∂F_θ(X) (a vector-Jacobian product)
// into the parameter gradients. Every NSVM objective is a closed-form
// function of the features Z = F_θ(X) through the kernel, so the trainers
// compute ∂L/∂Z themselves and hand it to Backward; no general autodiff is
// needed.
//
// # Paper symbols
//
//	F_θ          *Net (Forward, Features)
//	θ            Net.Params(): W of every Param
//	∇_θ L        Param.G, accumulated by Backward
//	∂L/∂F_θ(X)   the dout argument of Backward
//	θ-step       Optimizer.Step (SGD with momentum, Adam)
//
// # Architecture specs
//
// A network is a comma-separated list of tokens (spaces allowed), applied
// left to right:
//
//	dense(N)        fully connected, N outputs, with bias (torch.nn.Linear)
//	conv(C,K)       C output channels, K×K kernel, stride 1, no padding, with bias (torch.nn.Conv2d)
//	maxpool(K)      K×K windows, stride K; rows/columns that do not fill a window are dropped (torch.nn.MaxPool2d)
//	relu            max(x, 0)
//	dropout2d(P)    zero whole channels with probability P, scale kept ones by 1/(1−P) (torch.nn.Dropout2d)
//	dropout(P)      the same for single elements (torch.nn.Dropout)
//	flatten         C×H×W → C·H·W in PyTorch's NCHW order (torch.nn.Flatten)
//	meanpool        C×H×W → C, each channel's mean over all positions (torch.nn.AdaptiveAvgPool2d(1), then flatten)
//	batchnorm       per-channel batch normalisation with learned scale and shift, ε = 1e-5, momentum 0.1
//	                (torch.nn.BatchNorm2d on an image, BatchNorm1d on features)
//	l2norm          x / max(‖x‖₂, 1e-12) per sample (torch.nn.functional.normalize)
//	l2norm(EPS)     the same with ε = EPS
//	scale(C)        C·x
//	tanh, sigmoid   elementwise
//
// Inputs are flat (shape [D]) or images (shape [C, H, W]). conv, maxpool,
// dropout2d and meanpool need an image; dense and l2norm flatten an image implicitly (as if
// a flatten token stood before them), and the output of a Net is always flat,
// in NCHW order. Parameters are named like the state_dict of the equivalent
// torch.nn.Sequential: the token's index from 0 and ".weight" or ".bias"
// ("0.weight", "3.bias" for MNISTArch); a batchnorm also keeps its running
// statistics ".running_mean" and ".running_var", saved with the parameters
// but marked Param.Buffer, which no gradient reaches and no optimizer moves.
// In training a batchnorm normalises by the batch's statistics, and a batch
// the Net splits in two for the cores by each half's (ghost batch
// normalisation: the same result on any machine); in inference by the running
// statistics. ParseArch checks the syntax only; New
// also checks that the shapes fit. Errors name the token, counted from 1:
//
//	nn: arch "dense(40),relu,dense(x)": token 3 "dense(x)": width must be a positive integer
//
// The paper's networks are RingnormArch and MNISTArch, and without the output
// normalisation (Algorithms 3/4) RingnormArchNoNorm and MNISTArchNoNorm.
//
// # Conventions
//
// Data is float32 and row-major, one sample per row of a batch. Parameters
// are initialised as PyTorch does (kaiming_uniform with a = √5, i.e.
// U(−1/√fan_in, 1/√fan_in), for weights and biases) from the *rand.Rand given
// to New, which is then used for the dropout masks.
//
// Inside the Net, image activations are kept channel-first across the batch,
// C × (N·H·W), so that a convolution is one product of the weights with the
// im2col matrix of its input. When the output width is a multiple of 8 (the
// paper's CNN) the products are implicit: vec.ConvForward, ConvWeightGrad and
// ConvInputGrad gather the input through tables of offsets, so no im2col
// matrix is built or scattered back, and the weight gradient is added
// straight into the gradient. Other convolutions build the im2col matrix per
// block of samples whose copy fits in a share of L2 and call internal/vec's
// Sgemm (Backward rebuilds the blocks rather than keeping them), with the
// bias as an extra column of the weights against a row of ones; such a
// convolution that feeds a max-pool (directly or through dropout2d) writes
// rows padded to its input width, which makes every im2col block one
// contiguous copy. A 2×2 max-pool whose windows tile the planes keeps its
// input and finds the maxima again in Backward (vec.MaxPool2Grad), both
// passes in vector kernels; other pools record where each maximum was. A
// relu right after a max-pool, a dense layer or a conv is computed by that
// layer, in place. Flatten turns the activations back into NCHW rows. Plain
// Go loops over the data are several times slower than the vector kernels,
// axpy and memory copies, so the layers lean on those.
//
// The training passes (Forward with train set, and Backward) of a 3×3 or 5×5
// convolution with at least sixteen input channels and an output that whole
// 4×4 or 2×2 tiles cover use Winograd's minimal filtering F(m×m, r×r)
// instead (winograd.go): the input and the kernels are transformed,
// multiplied channel by channel in the transformed domain (one GEMM per
// position of the α×α tile, α = m+r−1) and transformed back, with 64
// multiplications per 4×4 outputs of a 5×5 kernel instead of 400; the
// backward passes are the adjoints of the same maps. It agrees with the
// direct convolution to a few 10⁻⁶ of the largest value; inference keeps the
// direct kernels. Work (Net.CountInto) counts the multiply-adds of the
// products each pass makes.
//
// Forward returns outputs owned by the Net; Backward adds into Param.G (call
// ZeroGrad or Optimizer.ZeroGrad to clear). After a warm-up call, Forward,
// Backward and Step allocate nothing for a fixed batch size. A batch whose
// work exceeds about 10⁶ multiply-adds is split by samples into two parts
// (a constant, so that results are bit-identical on any number of cores) run
// by persistent workers, each with its own workspace (and private gradient
// buffers summed at the end); a single sample never leaves the calling
// goroutine, and the GEMMs are kept below the size at which vec.Sgemm would
// start goroutines of its own. Dropout masks are drawn for the whole batch
// before it is split.
//
// Features computes inference outputs for any number of rows in chunks of
// about 1 MB of workspace, spread over the workers; it uses workspaces apart
// from the train-mode ones, so calling it between Forward(train=true) and
// Backward is safe.
//
// # Sparse inputs
//
// A network whose first layer is dense (dense(N) first, or after flattens
// only; SparseInput) takes rows in compressed sparse row form (data.CSR)
// without ever making them dense: ForwardSparse runs a batch of them and
// Backward follows it as it follows Forward, FeaturesSparse computes the
// inference outputs of all rows. The first layer costs nnz·N multiply-adds
// for a batch of nnz nonzeros instead of batch·D·N: y = b + Σ v·W[:, j]
// over each row's nonzeros (j, v), and
// the weight gradient ∂W[:, j] += v·∂y is scattered over the same nonzeros
// (split across the workers by output ranges, each element summed in row
// order); the rest of the network runs on dense activations.
// Net.SetSparseLayout stores the first weight transposed, D×N
// (Param.Transposed), so that the N weights of an input are one contiguous
// run and a nonzero costs one axpy; in PyTorch's N×D layout the same
// computation gathers N scattered weights per nonzero and is an order of
// magnitude slower when W outgrows the caches. Param.Torch and SetTorch
// convert, and model files are always written in PyTorch's layout. The
// optimizers are elementwise and work on either layout; they still update
// all of W (weight decay and momentum change every weight), which
// dominates a step once D·N is large.
//
// The optimizers follow torch.optim exactly (SGD with momentum, dampening 0,
// optional Nesterov, L2 weight decay added to the gradient; Adam), in float32,
// and expose their buffers through State/SetState so that a resumed run is
// bit-identical. Schedules (Constant, StepDecay, InvT, CosineDecay) map a step
// number to a learning rate for Optimizer.SetLR.
//
// Correctness is checked against central finite differences for every layer
// and against PyTorch 1.13 for the paper's MLP and CNN (testdata/, made by
// testdata/make_fixtures.py).
package nn
