package beamio

import "os"

// PrivateTemp points the process's temporary files (os.TempDir, through
// TMPDIR) at a new directory of its own, and returns the function that
// removes the directory and restores TMPDIR. Beam's loopback runner
// leaves an empty file in the temporary directory for every pipeline it
// runs (runnerlib.Execute); in a private directory nothing is left
// behind. If the directory cannot be made, nothing changes.
func PrivateTemp() (restore func()) {
	dir, err := os.MkdirTemp("", "nsvm-beam-")
	if err != nil {
		return func() {}
	}
	old, had := os.LookupEnv("TMPDIR")
	os.Setenv("TMPDIR", dir)
	return func() {
		if had {
			os.Setenv("TMPDIR", old)
		} else {
			os.Unsetenv("TMPDIR")
		}
		os.RemoveAll(dir)
	}
}
