// Package safetensors reads and writes files in the safetensors layout
// (https://github.com/huggingface/safetensors), the container of every model
// file in this module.
//
// A file is
//
//	u64 little-endian N | N bytes of JSON header | tensor bytes
//
// The header maps each tensor name to {"dtype", "shape", "data_offsets":
// [begin, end]} and may hold a "__metadata__" object of string to string.
// Offsets count from the first byte after the header; the tensors tile the
// data section with no gaps and no overlap, and all numbers are little-endian.
//
// Write is deterministic: metadata keys are sorted, tensors are ordered by
// decreasing element size and then by name (as the reference Rust writer
// does, so that every tensor is aligned to its element size), the header is
// padded with spaces to a multiple of 8 bytes, and the same input always
// gives the same bytes. Python's safetensors.safe_open reads the result.
//
// WriteChecksummed (and WriteFile, which uses it) appends a last tensor,
// "__sha256__" (U8, 32 values): the SHA-256 of every byte before it. Read
// verifies it and sets File.Checked, so that a single flipped bit anywhere
// is an error (ErrChecksum) instead of a changed model; files without it
// (Write's, other programs') read as before, with Checked false. Other
// readers see one more tensor.
//
// Read treats its input as hostile: it checks the header length against the
// stated size and a 100 MB cap before allocating anything, rejects unknown
// dtypes, shapes that do not match the byte ranges, ranges out of bounds,
// overlapping or leaving gaps, duplicate names and trailing bytes, and never
// panics. Tensor data read from a file is kept as raw bytes; Float32s,
// Float64s and Int64s decode it with a dtype check.
package safetensors
