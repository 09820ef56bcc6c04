package nsvmbeam

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs" // gs://
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/s3" // s3://
	"github.com/nsvm-go/nsvm"
	"github.com/nsvm-go/nsvm/data"
)

// isLocal reports whether path names a file of this machine rather than
// one of another Beam file system (gs://, s3://, …).
func isLocal(path string) bool { return !strings.Contains(path, "://") }

// readCloser closes a file and the file system it was opened on.
type readCloser struct {
	io.Reader
	closers []io.Closer
}

func (r *readCloser) Close() error {
	var errs []error
	for _, c := range r.closers {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

// openRead opens path on its Beam file system. A gzip-compressed file,
// told by its first bytes as nsvm's readers tell it, reads decompressed.
func openRead(ctx context.Context, path string) (io.ReadCloser, error) {
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return nil, err
	}
	rc, err := fs.OpenRead(ctx, path)
	if err != nil {
		fs.Close()
		return nil, err
	}
	br := bufio.NewReaderSize(rc, 1<<20)
	out := &readCloser{Reader: br, closers: []io.Closer{rc, fs}}
	if head, _ := br.Peek(2); len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			out.Close()
			return nil, fmt.Errorf("%s: gzip: %w", path, err)
		}
		out.Reader = zr
		out.closers = append([]io.Closer{zr}, out.closers...)
	}
	return out, nil
}

// listFiles returns the files a glob matches on its file system.
func listFiles(ctx context.Context, glob string) ([]string, error) {
	fs, err := filesystem.New(ctx, glob)
	if err != nil {
		return nil, err
	}
	defer fs.Close()
	return fs.List(ctx, glob)
}

// writeFile writes path on its Beam file system: a local file through a
// temporary file and a rename, so that a failure leaves no partial file;
// an object store's object appears when it is complete.
func writeFile(ctx context.Context, path string, write func(w io.Writer) error) error {
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return err
	}
	defer fs.Close()
	target := path
	if isLocal(path) {
		f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
		if err != nil {
			return fmt.Errorf("cannot write %s: %w", path, err)
		}
		f.Close()
		target = f.Name()
		defer os.Remove(target) // gone after the rename
	}
	w, err := fs.OpenWrite(ctx, target)
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	if err := write(bw); err != nil {
		w.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		w.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if target != path {
		return os.Rename(target, path)
	}
	return nil
}

// once caches what a worker process loads once: models and data sets.
type once[T any] struct {
	mu sync.Mutex
	m  map[string]*onceEntry[T]
}

type onceEntry[T any] struct {
	once sync.Once
	v    T
	err  error
}

// get returns the value of key, made by load the first time.
func (c *once[T]) get(key string, load func() (T, error)) (T, error) {
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]*onceEntry[T]{}
	}
	e, ok := c.m[key]
	if !ok {
		e = &onceEntry[T]{}
		c.m[key] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.v, e.err = load() })
	return e.v, e.err
}

// stamp names the version of the file at path that a process caches: its
// path, size and, where the file system tells it, modification time.
func stamp(ctx context.Context, path string) string {
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return path
	}
	defer fs.Close()
	size, _ := fs.Size(ctx, path)
	var mod time.Time
	if lm, ok := fs.(filesystem.LastModifiedGetter); ok {
		mod, _ = lm.LastModified(ctx, path)
	}
	return fmt.Sprintf("%s\x00%d\x00%d", path, size, mod.UnixNano())
}

// models holds the models loaded by this process, by file version.
var models once[*nsvm.Model]

// loadModel loads the model at path (any Beam file system) once per
// process and version of the file. Models are safe for concurrent
// prediction.
func loadModel(ctx context.Context, path string) (*nsvm.Model, error) {
	return models.get(stamp(ctx, path), func() (*nsvm.Model, error) {
		if isLocal(path) {
			return nsvm.Load(path)
		}
		// nsvm.Load reads files: a local copy.
		tmp, err := os.CreateTemp("", "nsvm-model-*")
		if err != nil {
			return nil, err
		}
		defer os.Remove(tmp.Name())
		rc, err := openRead(ctx, path)
		if err != nil {
			tmp.Close()
			return nil, err
		}
		_, err = io.Copy(tmp, rc)
		rc.Close()
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
		m, err := nsvm.Load(tmp.Name())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return m, nil
	})
}

// readData reads a data set as nsvm train reads its --data file: a local
// file with data.Open, a file of another file system with
// data.OpenReader (LIBSVM or CSV text).
func readData(ctx context.Context, path string, opt data.OpenOptions) (*data.Dataset, error) {
	var ds *data.Dataset
	var err error
	if isLocal(path) {
		ds, err = data.Open(path, opt)
	} else {
		var rc io.ReadCloser
		if rc, err = openRead(ctx, path); err != nil {
			return nil, err
		}
		ds, err = data.OpenReader(rc, path, opt)
		rc.Close()
	}
	if err != nil {
		return nil, err
	}
	if err := ds.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ds, nil
}

// SaveModel writes m to path: a local file with Model.Save (through a
// temporary file and a rename), an object of another Beam file system
// from a local copy.
func SaveModel(ctx context.Context, m *nsvm.Model, path string) error {
	if isLocal(path) {
		return m.Save(path)
	}
	dir, err := os.MkdirTemp("", "nsvm-model-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	local := filepath.Join(dir, "model.nsvm")
	if err := m.Save(local); err != nil {
		return err
	}
	return writeFile(ctx, path, func(w io.Writer) error {
		f, err := os.Open(local)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(w, f)
		return err
	})
}
