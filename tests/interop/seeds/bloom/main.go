// SPDX-License-Identifier: Apache-2.0

// The founding document's example of a Bloom filter in front of a user database
// (cache penetration): the valid user IDs are added at start-up, and a lookup whose
// ID the filter rules out skips the cache and the database. It runs in bloomkit's
// interop tests (tests/interop/README.md, interop.seed_bloom) with as few changes as
// possible:
//   - the import path is github.com/bits-and-blooms/bloom, the v3 library as Debian's
//     golang-github-willf-bloom-dev (3.3.1) provides it in GOPATH mode;
//   - `-save FILE` writes the filter (WriteTo) once the IDs are added, and `-load FILE`
//     reads the filter (ReadFrom) instead of adding them, so that its file goes to
//     bloomkit and comes back;
//   - an error reading or writing the file ends the program with status 1.
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"

	"github.com/bits-and-blooms/bloom"
)

func main() {
	save := flag.String("save", "", "write the filter to this file")
	load := flag.String("load", "", "read the filter from this file instead of adding the IDs")
	flag.Parse()

	// 100万用户，1% 误判率
	filter := bloom.NewWithEstimates(1_000_000, 0.01)

	if *load != "" {
		in, err := os.Open(*load)
		if err == nil {
			_, err = filter.ReadFrom(in)
			in.Close()
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	} else {
		// 服务启动时：从 DB 加载所有合法用户 ID
		userIDs := []int64{1, 2, 3, 100, 200, 500, 999}
		for _, id := range userIDs {
			filter.AddString(strconv.FormatInt(id, 10))
		}
	}
	if *save != "" {
		out, err := os.Create(*save)
		if err == nil {
			_, err = filter.WriteTo(out)
			if cerr := out.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}

	// 查询时：先过布隆过滤器
	testIDs := []int64{1, 50, 100, 888, 999}
	for _, id := range testIDs {
		key := strconv.FormatInt(id, 10)
		if !filter.TestString(key) {
			fmt.Printf("用户 %d → 一定不存在，跳过 DB 查询\n", id)
		} else {
			fmt.Printf("用户 %d → 可能存在，继续查缓存/DB\n", id)
		}
	}
}
