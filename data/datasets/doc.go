// Package datasets provides the data sets nsvm knows by name: the
// generators of the paper's and the benchmarks' synthetic problems, which
// return a *data.Dataset, and the fetcher of the MNIST files (the job of
// scikit-learn's sklearn.datasets: make_friedman1, fetch_openml).
//
//   - Ringnorm (paper §5.1): Breiman's two Gaussian classes in RingnormDim
//     = 20 dimensions, labels 1 and 2, the built-in default data of nsvm
//     data and the experiments. The DELVE file of 7400 rows is not here: it
//     reads with data.ReadCSV.
//   - Friedman1: Friedman's #1 regression problem (x ∈ U[0,1]^10,
//     y = 10 sin(πx₁x₂) + 20(x₃ − ½)² + 10x₄ + 5x₅ + noise; Friedman1Mean is
//     the noise-free mean), the generated regression set of the bench
//     against svm-train -s 3.
//   - FetchMNIST (paper §5.2) puts the four MNIST IDX files of MNISTFiles in
//     a directory, checked against their sha256; data.LoadMNIST or data.Open
//     reads them.
//
// Randomness comes only from the *rand.Rand the caller passes: the same seed
// draws the same data. A negative size panics, as data's programmer errors
// do; FetchMNIST's failures are returned, and like data's errors they start
// with "data: ".
package datasets
