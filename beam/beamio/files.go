// Package beamio reads and writes the files of nsvm's Beam pipelines on
// any of Beam's file systems (local paths, gs://, s3://): data sets and
// models read once per worker process and file version, models and lines
// written whole.
package beamio

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs" // gs://
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/s3" // s3://
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/internal/atomicfile"
	"github.com/nsvm-go/nsvm/model"
)

func init() {
	beam.RegisterType(reflect.TypeOf((*writeLinesFn)(nil)).Elem())
	register.DoFn3x1[context.Context, []byte, func(*string) bool, error](&writeLinesFn{})
	register.Iter1[string]()
}

// IsLocal reports whether path names a file of this machine rather than
// one of another Beam file system (gs://, s3://, …).
func IsLocal(path string) bool { return !strings.Contains(path, "://") }

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

// OpenRead opens path on its Beam file system. A gzip-compressed file,
// told by its first bytes as nsvm's readers tell it, reads decompressed.
func OpenRead(ctx context.Context, path string) (io.ReadCloser, error) {
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return nil, err
	}
	rc, err := fs.OpenRead(ctx, path)
	if err != nil {
		fs.Close()
		return nil, err
	}
	out := &readCloser{closers: []io.Closer{rc, fs}}
	// data.Uncompressed reads every member of a gzip file, as nsvm's own
	// readers do.
	zr, gz, err := data.Uncompressed(bufio.NewReaderSize(rc, 1<<20))
	if err != nil {
		out.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out.Reader = zr
	if c, ok := zr.(io.Closer); ok && gz {
		out.closers = append([]io.Closer{c}, out.closers...)
	}
	return out, nil
}

// ListFiles returns the files a glob matches on its file system.
func ListFiles(ctx context.Context, glob string) ([]string, error) {
	fs, err := filesystem.New(ctx, glob)
	if err != nil {
		return nil, err
	}
	defer fs.Close()
	return fs.List(ctx, glob)
}

// WriteFile writes path on its Beam file system: a local file as every
// nsvm output is written (internal/atomicfile: through a temporary file
// beside it and a rename, links followed, devices written in place), so
// that a failure leaves no partial file; an object store's object appears
// when it is complete.
func WriteFile(ctx context.Context, path string, write func(w io.Writer) error) error {
	buffered := func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		if err := write(bw); err != nil {
			return err
		}
		return bw.Flush()
	}
	if IsLocal(path) {
		if err := atomicfile.WriteContext(ctx, path, buffered); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
		return nil
	}
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return err
	}
	defer fs.Close()
	w, err := fs.OpenWrite(ctx, path)
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err := buffered(w); err != nil {
		w.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// once caches what a worker process loads once: models and data sets.
type Once[T any] struct {
	mu sync.Mutex
	m  map[string]*onceEntry[T]
}

type onceEntry[T any] struct {
	once sync.Once
	v    T
	err  error
}

// get returns the value of key, made by load the first time.
func (c *Once[T]) Get(key string, load func() (T, error)) (T, error) {
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

// Stamp names the version of the file at path that a process caches: its
// path, size and, where the file system tells it, modification time.
func Stamp(ctx context.Context, path string) string {
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
var models Once[*model.Model]

// LoadModel loads the model at path (any Beam file system) once per
// process and version of the file. Models are safe for concurrent
// prediction.
func LoadModel(ctx context.Context, path string) (*model.Model, error) {
	return models.Get(Stamp(ctx, path), func() (*model.Model, error) {
		if IsLocal(path) {
			return model.Load(path)
		}
		rc, err := OpenRead(ctx, path)
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		m, err := model.Read(rc)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return m, nil
	})
}

// ReadData reads a data set as nsvm train reads its --data file: a local
// file with data.Open, a file of another file system with
// data.OpenReader (LIBSVM or CSV text).
func ReadData(ctx context.Context, path string, opt data.OpenOptions) (*data.Dataset, error) {
	var ds *data.Dataset
	var err error
	if IsLocal(path) {
		ds, err = data.Open(path, opt)
	} else {
		var rc io.ReadCloser
		if rc, err = OpenRead(ctx, path); err != nil {
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
// temporary file and a rename), an object of another Beam file system as
// Model.WriteTo writes it.
func SaveModel(ctx context.Context, m *model.Model, path string) error {
	if IsLocal(path) {
		return m.Save(path)
	}
	return WriteFile(ctx, path, func(w io.Writer) error {
		_, err := m.WriteTo(w)
		return err
	})
}

// Runner runs a pipeline: beamx.RunWithMetrics for the runner the --runner
// flag names, ptest.RunWithMetrics in tests.
type Runner func(ctx context.Context, p *beam.Pipeline) (beam.PipelineResult, error)

// WriteLines adds to s the writing of the lines of col to the file path
// (any Beam file system), a line each, in no particular order. The file is
// written, empty, when col is: a run leaves every output it names. A local
// file goes through a temporary file and a rename.
func WriteLines(s beam.Scope, path string, col beam.PCollection) {
	s = s.Scope("nsvm.WriteLines")
	beam.ParDo0(s, &writeLinesFn{Path: path}, beam.Impulse(s), beam.SideInput{Input: col})
}

// writeLinesFn writes its side input's lines to Path.
type writeLinesFn struct {
	Path string
}

func (fn *writeLinesFn) ProcessElement(ctx context.Context, _ []byte, lines func(*string) bool) error {
	return WriteFile(ctx, fn.Path, func(w io.Writer) error {
		var l string
		for lines(&l) {
			if _, err := io.WriteString(w, l); err != nil {
				return err
			}
			if _, err := w.Write([]byte{'\n'}); err != nil {
				return err
			}
		}
		return nil
	})
}
