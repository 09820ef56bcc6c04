// Command zipfgen writes a generated bag-of-words text classification
// problem as LIBSVM text: tf-idf weighted, L2-normalised rows as
// scikit-learn's TfidfVectorizer() makes them, deterministic from a seed.
//
// The model: a vocabulary of V words whose background frequencies follow
// Zipf's law (p(rank r) ∝ 1/r^s). The K classes fall into G groups (as 20
// Newsgroups' comp.*, rec.*, …); every group and every class has a topic, a
// few hundred words drawn from outside the most frequent ranks (the stop
// words), with Zipfian weights of their own. A document of class c has a
// length drawn uniformly from [minlen, maxlen] tokens; each token comes from
// c's topic with probability a (drawn per document around -topic), from its
// group's topic with probability -group, and from the background otherwise.
// Classes are equally likely.
//
// Weighting as TfidfVectorizer's defaults: raw counts times
// idf = ln((1+n)/(1+df)) + 1 with df counted on the training documents, then
// each row divided by its L2 norm. A word never seen in training is dropped
// from the test rows (it has no column in a fitted vectorizer). Feature j is
// the word of background rank j (1-based), so the width is the highest rank
// seen in training; labels are 1…K.
//
//	go run ./bench/cmd/zipfgen -out DIR/zipf            # DIR/zipf.train.libsvm, DIR/zipf.test.libsvm
//	go run ./bench/cmd/zipfgen -classes 2 -groups 1 -vocab 50000 -minlen 40 -maxlen 80 -topic 0.04 -out DIR/bin
//
// The defaults make 20000 + 5000 documents of 20 classes over a vocabulary of
// 60000 words, about 133 nonzeros a row (0.22 %), on which liblinear-train
// with its defaults scores about 87 %; the second line makes the binary
// 20000 × 50000 file of about 51 nonzeros a row (0.1 %). It prints the sizes
// and the density of both files on stderr.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strconv"
)

type config struct {
	vocab, classes, groups int
	train, test            int
	minLen, maxLen         int
	zipf                   float64
	stop                   int
	topicWords, groupWords int
	topic, group           float64
	seed                   uint64
	out                    string
}

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "zipfgen:", err)
		os.Exit(1)
	}
}

func run(args []string, log io.Writer) error {
	var c config
	fs := flag.NewFlagSet("zipfgen", flag.ContinueOnError)
	fs.IntVar(&c.vocab, "vocab", 60000, "vocabulary size V")
	fs.IntVar(&c.classes, "classes", 20, "number of classes K")
	fs.IntVar(&c.groups, "groups", 5, "groups of classes sharing a topic (1: none shared)")
	fs.IntVar(&c.train, "train", 20000, "training documents")
	fs.IntVar(&c.test, "test", 5000, "test documents")
	fs.IntVar(&c.minLen, "minlen", 50, "shortest document, tokens")
	fs.IntVar(&c.maxLen, "maxlen", 300, "longest document, tokens")
	fs.Float64Var(&c.zipf, "zipf", 1.0, "Zipf exponent s of the background and topic frequencies")
	fs.IntVar(&c.stop, "stop", 200, "the most frequent ranks, never topic words (stop words)")
	fs.IntVar(&c.topicWords, "topic-words", 300, "words in a class's topic")
	fs.IntVar(&c.groupWords, "group-words", 600, "words in a group's topic")
	fs.Float64Var(&c.topic, "topic", 0.025, "mean share of a document's tokens from its class's topic (per document: uniform in [0.25, 1.75] × this)")
	fs.Float64Var(&c.group, "group", 0.08, "share of a document's tokens from its group's topic")
	fs.Uint64Var(&c.seed, "seed", 1, "random seed")
	fs.StringVar(&c.out, "out", "", "output prefix: writes PREFIX.train.libsvm and PREFIX.test.libsvm (required)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := c.check(); err != nil {
		return err
	}
	docs := generate(&c)
	train, test := docs[:c.train], docs[c.train:]
	idf := fitIDF(train, c.vocab)
	for _, part := range []struct {
		name string
		docs []doc
	}{{"train", train}, {"test", test}} {
		path := c.out + "." + part.name + ".libsvm"
		st, err := writeFile(path, part.docs, idf)
		if err != nil {
			return err
		}
		fmt.Fprintf(log, "%s: %d rows, width %d, %d nonzeros (%.1f a row, density %.4f %%), %.1f tokens a row\n",
			path, len(part.docs), st.width, st.nnz, float64(st.nnz)/float64(len(part.docs)),
			100*float64(st.nnz)/float64(len(part.docs))/float64(max(st.width, 1)), float64(st.tokens)/float64(len(part.docs)))
	}
	return nil
}

func (c *config) check() error {
	switch {
	case c.out == "":
		return errors.New("-out is required")
	case c.vocab < 2 || c.classes < 2 || c.groups < 1 || c.groups > c.classes:
		return errors.New("need -vocab ≥ 2, -classes ≥ 2 and 1 ≤ -groups ≤ -classes")
	case c.train < 1 || c.test < 0:
		return errors.New("need -train ≥ 1 and -test ≥ 0")
	case c.minLen < 1 || c.maxLen < c.minLen:
		return errors.New("need 1 ≤ -minlen ≤ -maxlen")
	case c.zipf <= 0:
		return errors.New("-zipf must be > 0")
	case c.stop < 0 || c.vocab-c.stop < max(c.topicWords, c.groupWords) || c.topicWords < 1 || c.groupWords < 1:
		return errors.New("need 1 ≤ -topic-words, -group-words ≤ -vocab − -stop")
	case c.topic < 0 || c.group < 0 || 1.75*c.topic+c.group > 1:
		return errors.New("need -topic, -group ≥ 0 and 1.75 × -topic + -group ≤ 1")
	}
	return nil
}

// sampler draws indices with probabilities given by a cumulative table.
type sampler struct{ cdf []float64 }

func newSampler(w []float64) sampler {
	cdf := make([]float64, len(w))
	s := 0.0
	for i, v := range w {
		s += v
		cdf[i] = s
	}
	for i := range cdf {
		cdf[i] /= s
	}
	return sampler{cdf}
}

func (s sampler) draw(r *rand.Rand) int {
	i := sort.SearchFloat64s(s.cdf, r.Float64())
	return min(i, len(s.cdf)-1)
}

// zipfWeights returns 1/(i+1)^s for i < n.
func zipfWeights(n int, s float64) []float64 {
	w := make([]float64, n)
	for i := range w {
		w[i] = math.Pow(float64(i+1), -s)
	}
	return w
}

// topic is a set of words with Zipfian weights over a random order.
type topic struct {
	words []int32
	pick  sampler
}

func newTopic(r *rand.Rand, c *config, n int) topic {
	seen := make(map[int]bool, n)
	words := make([]int32, 0, n)
	for len(words) < n {
		w := c.stop + r.IntN(c.vocab-c.stop)
		if !seen[w] {
			seen[w] = true
			words = append(words, int32(w))
		}
	}
	return topic{words, newSampler(zipfWeights(n, c.zipf))}
}

func (t topic) draw(r *rand.Rand) int { return int(t.words[t.pick.draw(r)]) }

// doc is one document: its class (0-based) and its word counts, by word.
type doc struct {
	label  int
	words  []int32 // sorted, distinct
	counts []int32
	tokens int
}

func generate(c *config) []doc {
	r := rand.New(rand.NewPCG(c.seed, 0x7a697066))
	background := newSampler(zipfWeights(c.vocab, c.zipf))
	groupTopics := make([]topic, c.groups)
	for g := range groupTopics {
		groupTopics[g] = newTopic(r, c, c.groupWords)
	}
	classTopics := make([]topic, c.classes)
	for k := range classTopics {
		classTopics[k] = newTopic(r, c, c.topicWords)
	}
	docs := make([]doc, c.train+c.test)
	counts := map[int32]int32{}
	for i := range docs {
		k := r.IntN(c.classes)
		g := k * c.groups / c.classes
		a := c.topic * (0.25 + 1.5*r.Float64())
		n := c.minLen + r.IntN(c.maxLen-c.minLen+1)
		clear(counts)
		for range n {
			var w int
			switch u := r.Float64(); {
			case u < a:
				w = classTopics[k].draw(r)
			case u < a+c.group:
				w = groupTopics[g].draw(r)
			default:
				w = background.draw(r)
			}
			counts[int32(w)]++
		}
		d := doc{label: k, tokens: n, words: make([]int32, 0, len(counts))}
		for w := range counts {
			d.words = append(d.words, w)
		}
		slices.Sort(d.words)
		d.counts = make([]int32, len(d.words))
		for j, w := range d.words {
			d.counts[j] = counts[w]
		}
		docs[i] = d
	}
	return docs
}

// fitIDF is TfidfVectorizer's smooth idf on the training documents; a word
// absent from them has idf 0 (no column).
func fitIDF(train []doc, vocab int) []float64 {
	df := make([]int, vocab)
	for _, d := range train {
		for _, w := range d.words {
			df[w]++
		}
	}
	idf := make([]float64, vocab)
	n := float64(len(train))
	for w, f := range df {
		if f > 0 {
			idf[w] = math.Log((1+n)/(1+float64(f))) + 1
		}
	}
	return idf
}

type stats struct {
	width, nnz, tokens int
}

func writeFile(path string, docs []doc, idf []float64) (stats, error) {
	f, err := os.Create(path)
	if err != nil {
		return stats{}, err
	}
	st, werr := write(f, docs, idf)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(path)
		return stats{}, fmt.Errorf("writing %s: %w", path, werr)
	}
	return st, nil
}

func write(w io.Writer, docs []doc, idf []float64) (stats, error) {
	bw := bufio.NewWriterSize(w, 1<<20)
	var st stats
	var buf []byte
	vals := make([]float64, 0, 512)
	for _, d := range docs {
		vals = vals[:0]
		ss := 0.0
		for j, word := range d.words {
			v := float64(d.counts[j]) * idf[word]
			vals = append(vals, v)
			ss += v * v
		}
		norm := math.Sqrt(ss)
		buf = strconv.AppendInt(buf[:0], int64(d.label+1), 10)
		for j, word := range d.words {
			if vals[j] == 0 {
				continue
			}
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(word)+1, 10)
			buf = append(buf, ':')
			buf = strconv.AppendFloat(buf, vals[j]/norm, 'g', 6, 64)
			st.nnz++
			st.width = max(st.width, int(word)+1)
		}
		buf = append(buf, '\n')
		st.tokens += d.tokens
		if _, err := bw.Write(buf); err != nil {
			return st, err
		}
	}
	return st, bw.Flush()
}
