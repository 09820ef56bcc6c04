// Package nsvmbeam runs nsvm on Apache Beam: batch prediction over data
// too large for one machine, and Fit's model selection with its
// candidates scored on the workers of a cluster. The pipelines are
// written with Beam's Go SDK, so that the same program runs on Google
// Cloud Dataflow, on Apache Flink and Apache Spark (through Beam's
// portable job server) and in-process on Beam's local runner, prism.
//
// Its packages: nsvmbeam (this one) trains; beam/predict scores, and needs
// only the model package of the core module, not its trainers or search;
// beam/beamio reads and writes both's files on Beam's file systems.
//
// Predict (package predict) reads LIBSVM or CSV files (a glob over any of Beam's file
// systems: local paths, gs://, s3://), gzip-compressed or not, through
// nsvm's own readers (data.OpenReader), scores their rows in batches with
// a model loaded once per worker process, and yields a line per row,
//
//	FILE<TAB>LINE<TAB>label<TAB>decision[<TAB>P(class) for every class]
//
// with the label and decision value that nsvm predict prints for the row.
// A row that cannot be read is a dead letter, FILE<TAB>LINE<TAB>reason,
// counted (the counter "nsvm/bad_rows"); it never fails the pipeline.
//
// Train runs nsvm.Search: each round of the selection (the SVM grid's
// kernel matrices, the linear SVM's C paths, the candidates trained one
// validation split at a time, networks among them) is one pipeline whose
// elements are the round's tasks; the driver merges the results in the
// library's order and trains the winner, so that the model file is the one
// nsvm train writes with the same data and seed, byte for byte. Every
// worker reads the whole training set once per process.
//
// The core module does not depend on this one: Beam's SDK brings about
// ninety modules, which stay out of nsvm's go.mod.
package nsvmbeam
