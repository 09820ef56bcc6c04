package svm

// colCache is an LRU cache of kernel-matrix columns with a limit on the
// total number of stored float32 values, a port of LIBSVM's Cache
// (Chang & Lin, LIBSVM, svm.cpp). Column i may be stored for a prefix
// [0, len) of the rows only; asking for a longer prefix extends it. The
// solver's shrinking permutes rows and columns together through swap.
//
// The limit counts the capacity of the columns' storage, and the storage
// of evicted columns is reused for new ones (up to twice the length they
// need): a cache that is full evicts a column for each new one, and
// without reuse every eviction would leave its storage to the garbage
// collector, which lets the heap grow to twice the cache before it
// collects.
type colCache struct {
	cols       [][]float32 // cols[i][:len] is the cached prefix of column i; len 0: not cached
	prev, next []int32     // LRU list over cached columns; index l is the sentinel
	free       int         // values that may still be stored (capacities counted)
	spare      [][]float32 // storage of evicted columns, not counted; at most maxSpare
	l          int
}

// maxSpare is the number of evicted columns' storages kept for reuse.
const maxSpare = 2

// newColCache returns a cache for l columns holding at most limit values
// (at least two full columns).
func newColCache(l, limit int) *colCache {
	c := &colCache{
		cols: make([][]float32, l),
		prev: make([]int32, l+1),
		next: make([]int32, l+1),
		free: max(limit, 2*l),
		l:    l,
	}
	c.prev[l], c.next[l] = int32(l), int32(l)
	return c
}

func (c *colCache) lruDelete(i int) {
	p, n := c.prev[i], c.next[i]
	c.next[p] = n
	c.prev[n] = p
}

func (c *colCache) lruInsert(i int) { // at the tail: most recently used
	s := int32(c.l)
	last := c.prev[s]
	c.next[last] = int32(i)
	c.prev[i] = last
	c.next[i] = s
	c.prev[s] = int32(i)
}

// evict drops column i, keeping its storage for reuse.
func (c *colCache) evict(i int) {
	c.lruDelete(i)
	h := c.cols[i]
	c.free += cap(h)
	c.cols[i] = nil
	c.keep(h)
}

// keep holds the storage h of a dropped column for reuse: among the spares
// and h, the largest maxSpare are kept.
func (c *colCache) keep(h []float32) {
	if cap(h) == 0 {
		return
	}
	if len(c.spare) < maxSpare {
		c.spare = append(c.spare, h[:0])
		return
	}
	small := 0
	for s, sp := range c.spare {
		if cap(sp) < cap(c.spare[small]) {
			small = s
		}
	}
	if cap(h) > cap(c.spare[small]) {
		c.spare[small] = h[:0]
	}
}

// alloc returns storage for n values, charged to free (which covers n):
// the smallest spare that holds n values, takes at most twice that and
// fits in free, else a new slice. Its contents are undefined.
func (c *colCache) alloc(n int) []float32 {
	best := -1
	for s, sp := range c.spare {
		if k := cap(sp); k >= n && k <= 2*n && k <= c.free && (best < 0 || k < cap(c.spare[best])) {
			best = s
		}
	}
	if best < 0 {
		c.free -= n
		return make([]float32, n)
	}
	h := c.spare[best][:n]
	last := len(c.spare) - 1
	c.spare[best] = c.spare[last]
	c.spare[last] = nil
	c.spare = c.spare[:last]
	c.free -= cap(h)
	return h
}

// get returns storage for the first n values of column i and the number of
// them already valid; the caller fills [start, n). The slice stays valid
// until the next get of another column evicts it, which cannot happen to the
// most recently returned column.
func (c *colCache) get(i, n int) (col []float32, start int) {
	h := c.cols[i]
	if len(h) > 0 {
		c.lruDelete(i)
	}
	if n > len(h) {
		start = len(h)
		if cap(h) >= n { // the capacity is counted already
			h = h[:n]
		} else {
			c.cols[i] = nil
			c.free += cap(h)
			for c.free < n {
				c.evict(int(c.next[c.l]))
			}
			nh := c.alloc(n)
			copy(nh, h)
			c.keep(h)
			h = nh
		}
		c.cols[i] = h
	} else {
		start = n
	}
	c.lruInsert(i)
	return h[:n], start
}

// swap exchanges indices i and j in every cached column and between the
// columns themselves, dropping columns whose prefix covers only one of the
// two rows.
func (c *colCache) swap(i, j int) {
	if i == j {
		return
	}
	if len(c.cols[i]) > 0 {
		c.lruDelete(i)
	}
	if len(c.cols[j]) > 0 {
		c.lruDelete(j)
	}
	c.cols[i], c.cols[j] = c.cols[j], c.cols[i]
	if len(c.cols[i]) > 0 {
		c.lruInsert(i)
	}
	if len(c.cols[j]) > 0 {
		c.lruInsert(j)
	}
	if i > j {
		i, j = j, i
	}
	s := int32(c.l)
	for h := c.next[s]; h != s; {
		nxt := c.next[h]
		col := c.cols[h]
		if len(col) > i {
			if len(col) > j {
				col[i], col[j] = col[j], col[i]
			} else {
				c.evict(int(h))
			}
		}
		h = nxt
	}
}
