package nsvmbeam

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/nsvm-go/nsvm/beam/beamio"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/nsvm-go/nsvm"
	"github.com/nsvm-go/nsvm/data"
)

func init() {
	beam.RegisterType(reflect.TypeOf((*taskFn)(nil)).Elem())
	register.DoFn3x1[context.Context, string, func(string), error](&taskFn{})
}

// TrainOptions configure Train. Data is required; the zero value of every
// other field is nsvm train's default, and the fields mean what the flags
// of nsvm train of the same names mean.
type TrainOptions struct {
	// Data is the training data: a local file in any format nsvm reads,
	// or LIBSVM or CSV text on another Beam file system (gs://, s3://).
	// Every worker reads it, once per process.
	Data string
	// Format is the data's format ("": from the name, else the content).
	Format string
	// Seed, Folds, Probability and Budget are FitConfig's.
	Seed        uint64
	Folds       int
	Probability bool
	Budget      time.Duration
	// Work is the directory where each round's results are written for
	// the driver to read, on a file system the workers can write and the
	// driver read (gs:// for Dataflow); "" is a new local temporary
	// directory, removed after.
	Work string
}

// config is the FitConfig of o, on the driver and the workers alike.
func (o TrainOptions) config() *nsvm.FitConfig {
	return &nsvm.FitConfig{Seed: o.Seed, Folds: o.Folds, Probability: o.Probability, Budget: o.Budget}
}

// searches holds the searches of this process, by their options and the
// version of the data file.
var searches beamio.Once[*nsvm.Search]

// search reads the data and prepares the search of o, once per process.
func (o TrainOptions) search(ctx context.Context) (*nsvm.Search, error) {
	key, err := json.Marshal(o)
	if err != nil {
		return nil, err
	}
	return searches.Get(string(key)+beamio.Stamp(ctx, o.Data), func() (*nsvm.Search, error) {
		ds, err := beamio.ReadData(ctx, o.Data, data.OpenOptions{Format: o.Format})
		if err != nil {
			return nil, err
		}
		return nsvm.NewSearch(ds, o.config())
	})
}

// Train runs the model selection of nsvm.Fit on the data with every round
// of its candidates scored by a pipeline run with run, and trains the
// winner here: the model is the one nsvm.Fit (nsvm train) makes with the
// same data and options. progress, if not nil, receives Fit's reports.
func Train(ctx context.Context, o TrainOptions, run beamio.Runner, progress func(nsvm.FitProgress)) (*nsvm.Model, error) {
	if o.Data == "" {
		return nil, fmt.Errorf("no training data")
	}
	if err := o.config().Validate(); err != nil {
		return nil, err
	}
	work := o.Work
	if work == "" {
		dir, err := os.MkdirTemp("", "nsvm-beam-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		work = dir
	}
	driver := o
	driver.Work = "" // the workers' searches need not know it
	ds, err := beamio.ReadData(ctx, o.Data, data.OpenOptions{Format: o.Format})
	if err != nil {
		return nil, err
	}
	cfg := o.config()
	cfg.Progress = progress
	s, err := nsvm.NewSearch(ds, cfg)
	if err != nil {
		return nil, err
	}
	round := 0
	exec := func(ctx context.Context, tasks [][]byte) ([][]byte, error) {
		round++
		path := strings.TrimSuffix(work, "/") + "/round-" + strconv.Itoa(round) + ".txt"
		return runRound(ctx, driver, tasks, path, run)
	}
	return s.Run(ctx, exec)
}

// runRound scores tasks in one pipeline: the results are written to path,
// a line "index<TAB>base64" each, and read back in the tasks' order.
func runRound(ctx context.Context, o TrainOptions, tasks [][]byte, path string, run beamio.Runner) ([][]byte, error) {
	elems := make([]string, len(tasks))
	for i, t := range tasks {
		elems[i] = strconv.Itoa(i) + "\t" + base64.StdEncoding.EncodeToString(t)
	}
	p, s := beam.NewPipelineWithRoot()
	s = s.Scope("nsvm.Train")
	col := beam.Reshuffle(s, beam.CreateList(s, elems))
	beamio.WriteLines(s, path, beam.ParDo(s, &taskFn{Opt: o}, col))
	if _, err := run(ctx, p); err != nil {
		return nil, err
	}
	rc, err := beamio.OpenRead(ctx, path)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	out := make([][]byte, len(tasks))
	sc := bufio.NewScanner(rc)
	sc.Buffer(nil, 1<<30)
	for sc.Scan() {
		i, b, err := indexed(sc.Text())
		if err != nil || i >= len(out) || out[i] != nil {
			return nil, fmt.Errorf("%s: not a result of this round: %.40q", path, sc.Text())
		}
		out[i] = b
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for i, b := range out {
		if b == nil {
			return nil, fmt.Errorf("%s: no result for task %d", path, i)
		}
	}
	return out, nil
}

// indexed parses "index<TAB>base64".
func indexed(line string) (int, []byte, error) {
	is, bs, ok := strings.Cut(line, "\t")
	if !ok {
		return 0, nil, fmt.Errorf("no tab")
	}
	i, err := strconv.Atoi(is)
	if err != nil || i < 0 {
		return 0, nil, fmt.Errorf("index %q", is)
	}
	b, err := base64.StdEncoding.DecodeString(bs)
	return i, b, err
}

// taskFn scores search tasks on a worker.
type taskFn struct {
	Opt TrainOptions

	s *nsvm.Search
}

// Setup reads the data and prepares the search, once per worker process.
func (fn *taskFn) Setup(ctx context.Context) error {
	var err error
	fn.s, err = fn.Opt.search(ctx)
	return err
}

func (fn *taskFn) ProcessElement(ctx context.Context, elem string, emit func(string)) error {
	i, task, err := indexed(elem)
	if err != nil {
		return fmt.Errorf("nsvm: search task: %w", err)
	}
	res, err := fn.s.Score(ctx, task)
	if err != nil {
		return err
	}
	emit(strconv.Itoa(i) + "\t" + base64.StdEncoding.EncodeToString(res))
	return nil
}
