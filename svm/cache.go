package svm

// colCache is an LRU cache of kernel-matrix columns with a limit on the
// total number of stored float32 values, a port of LIBSVM's Cache
// (Chang & Lin, LIBSVM, svm.cpp). Column i may be stored for a prefix
// [0, len) of the rows only; asking for a longer prefix extends it. The
// solver's shrinking permutes rows and columns together through swap.
type colCache struct {
	cols       [][]float32 // cols[i][:len] is the cached prefix of column i; len 0: not cached
	prev, next []int32     // LRU list over cached columns; index l is the sentinel
	free       int         // values that may still be stored
	l          int
}

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

// evict drops column i.
func (c *colCache) evict(i int) {
	c.lruDelete(i)
	c.free += len(c.cols[i])
	c.cols[i] = nil
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
	if more := n - len(h); more > 0 {
		for c.free < more {
			c.evict(int(c.next[c.l]))
		}
		start = len(h)
		if cap(h) >= n {
			h = h[:n]
		} else {
			nh := make([]float32, n)
			copy(nh, h)
			h = nh
		}
		c.free -= more
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
