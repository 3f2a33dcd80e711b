// SPDX-License-Identifier: Apache-2.0

// babtool drives the real bits-and-blooms/bloom v3 library for bloomkit's interop
// tests (tests/interop/README.md):
//
//	babtool gen DIR           writes DIR/bab_<n>_<p>.bin (WriteTo) and .ans (Test answers)
//	babtool verify DIR        reads DIR/bab_<n>_<p>.back (ReadFrom), checks every key
//	                          bloomkit added and compares its answers with bloomkit's
//	babtool contains FILE N   reads FILE, checks key(0..N-1) and extra(0..N-1) are present
//	babtool serve FILE N P    for the Redis test (redis_go.py): FILE (NewWithEstimates(N, P)
//	                          with key(0..N-1)) and its answers FILE.ans; FILE.add, one
//	                          answer of TestAndAddString(added(i)) for i < N/2; then the
//	                          filter after those adds, FILE.after, and its FILE.after.ans
//	babtool answers FILE OUT  reads FILE, writes its answers to OUT
//	babtool heavy DIR         one filter of more than 2^32 bits (bab_big.bin / .ans)
//	babtool golden DIR        the golden files of tests/golden/foreign (README.md there)
//
// Keys (the same functions in interop_check.cc and GuavaTool.java): key(i), absent(i),
// added(i) below; answers are one '0' or '1' per probe: key(0..P-1) then absent(0..P-1).
package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/bits-and-blooms/bloom"
)

const probes = 100000

var sizes = []uint{1000, 20000, 100000}
var rates = []float64{0.01, 0.001}

func key(i int) string {
	s := fmt.Sprintf("k%d", i)
	if i%7 == 0 {
		s += "-\u00e9\u65e5"
	}
	return s + "-" + strings.Repeat("x", i%37)
}
func absent(i int) string { return fmt.Sprintf("a%d-%s", i, strings.Repeat("y", i%23)) }
func added(i int) string  { return fmt.Sprintf("n%d-%s", i, strings.Repeat("z", i%19)) }

func rateName(p float64) string { return strings.TrimPrefix(fmt.Sprintf("%g", p), "0.") }

func answers(f *bloom.BloomFilter) []byte {
	out := make([]byte, 0, 2*probes)
	for i := 0; i < probes; i++ {
		out = append(out, bit(f.TestString(key(i))))
	}
	for i := 0; i < probes; i++ {
		out = append(out, bit(f.TestString(absent(i))))
	}
	return out
}

func bit(b bool) byte {
	if b {
		return '1'
	}
	return '0'
}

func die(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "babtool: "+format+"\n", args...)
	os.Exit(1)
}

func write(path string, f *bloom.BloomFilter) {
	var buf bytes.Buffer
	if _, err := f.WriteTo(&buf); err != nil {
		die("%v", err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		die("%v", err)
	}
}

func read(path string) *bloom.BloomFilter {
	data, err := os.ReadFile(path)
	if err != nil {
		die("%v", err)
	}
	f := &bloom.BloomFilter{}
	if _, err := f.ReadFrom(bytes.NewReader(data)); err != nil {
		die("%s: %v", path, err)
	}
	return f
}

func gen(dir string) {
	for _, n := range sizes {
		for _, p := range rates {
			f := bloom.NewWithEstimates(n, p)
			for i := 0; i < int(n); i++ {
				f.AddString(key(i))
			}
			base := filepath.Join(dir, fmt.Sprintf("bab_%d_%s", n, rateName(p)))
			write(base+".bin", f)
			if err := os.WriteFile(base+".ans", answers(f), 0o644); err != nil {
				die("%v", err)
			}
		}
	}
}

// bloomkit added added(0..n/2-1) to each filter and wrote its answers to .back.ans.
func verify(dir string) {
	for _, n := range sizes {
		for _, p := range rates {
			base := filepath.Join(dir, fmt.Sprintf("bab_%d_%s", n, rateName(p)))
			f := read(base + ".back")
			for i := 0; i < int(n); i++ {
				if !f.TestString(key(i)) {
					die("%s.back: key(%d) is missing", base, i)
				}
			}
			for i := 0; i < int(n)/2; i++ {
				if !f.TestString(added(i)) {
					die("%s.back: added(%d), added by bloomkit, is missing", base, i)
				}
			}
			want, err := os.ReadFile(base + ".back.ans")
			if err != nil {
				die("%v", err)
			}
			if got := answers(f); !bytes.Equal(got, want) {
				die("%s.back: answers differ from bloomkit's", base)
			}
		}
	}
	fmt.Printf("babtool: %d filters read back, every key found, answers equal bloomkit's\n", len(sizes)*len(rates))
}

func contains(path string, n int) {
	f := read(path)
	for i := 0; i < n; i++ {
		if !f.TestString(key(i)) || !f.TestString(added(i)) {
			die("%s: key(%d) or added(%d) is missing", path, i, i)
		}
	}
	fmt.Printf("babtool: %s holds all %d keys\n", path, 2*n)
}

func serve(path string, n uint, p float64) {
	f := bloom.NewWithEstimates(n, p)
	for i := 0; i < int(n); i++ {
		f.AddString(key(i))
	}
	write(path, f)
	if err := os.WriteFile(path+".ans", answers(f), 0o644); err != nil {
		die("%v", err)
	}
	adds := make([]byte, 0, n/2)
	for i := 0; i < int(n)/2; i++ {
		adds = append(adds, bit(f.TestAndAddString(added(i))))
	}
	if err := os.WriteFile(path+".add", adds, 0o644); err != nil {
		die("%v", err)
	}
	write(path+".after", f)
	if err := os.WriteFile(path+".after.ans", answers(f), 0o644); err != nil {
		die("%v", err)
	}
}

// More than 2^32 bits (m = 4,400,000,000), 10^5 keys: the 64-bit modulo of every probe.
func heavy(dir string) {
	f := bloom.New(4400000000, 7)
	for i := 0; i < probes; i++ {
		f.AddString(key(i))
	}
	write(filepath.Join(dir, "bab_big.bin"), f)
	if err := os.WriteFile(filepath.Join(dir, "bab_big.ans"), answers(f), 0o644); err != nil {
		die("%v", err)
	}
}

// NewWithEstimates(1000, 0.01) with key(0..999); the same with added(0..499) too; the
// absent(0..99999) it answers "maybe" for, one index a line.
func golden(dir string) {
	f := bloom.NewWithEstimates(1000, 0.01)
	for i := 0; i < 1000; i++ {
		f.AddString(key(i))
	}
	write(filepath.Join(dir, "bab_golden.bin"), f)
	var fp bytes.Buffer
	for i := 0; i < probes; i++ {
		if f.TestString(absent(i)) {
			fmt.Fprintf(&fp, "%d\n", i)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "bab_golden.fp"), fp.Bytes(), 0o644); err != nil {
		die("%v", err)
	}
	for i := 0; i < 500; i++ {
		f.AddString(added(i))
	}
	write(filepath.Join(dir, "bab_golden_added.bin"), f)
}

func main() {
	if len(os.Args) < 3 {
		die("usage: babtool gen|verify|heavy|golden DIR | babtool contains FILE N | babtool serve FILE N P | babtool answers FILE OUT")
	}
	switch os.Args[1] {
	case "gen":
		gen(os.Args[2])
	case "verify":
		verify(os.Args[2])
	case "heavy":
		heavy(os.Args[2])
	case "golden":
		golden(os.Args[2])
	case "serve":
		var n uint
		var p float64
		fmt.Sscan(os.Args[3], &n)
		fmt.Sscan(os.Args[4], &p)
		serve(os.Args[2], n, p)
	case "answers":
		if err := os.WriteFile(os.Args[3], answers(read(os.Args[2])), 0o644); err != nil {
			die("%v", err)
		}
	case "contains":
		var n int
		fmt.Sscan(os.Args[3], &n)
		contains(os.Args[2], n)
	default:
		die("unknown mode %s", os.Args[1])
	}
}
