// SPDX-License-Identifier: Apache-2.0

// The founding document's example of a Bloom filter kept in Redis (BF.* commands of a
// Bloom module, here bloomkit.so). It runs in bloomkit's interop tests
// (tests/interop/README.md, interop.seed_redis) with as few changes as possible:
//   - the client is gopkg.in/redis.v5, as Debian's golang-gopkg-redis.v5-dev provides
//     it in GOPATH mode, instead of github.com/redis/go-redis/v9: v5 has no context
//     argument and no Do, so do() sends a command the way Do does (redis.NewCmd and
//     client.Process) and doBool() reads its integer reply as Do(...).Bool() does;
//   - the server's address is the first argument (default localhost:6379);
//   - a command that fails ends the program with status 1 instead of being ignored.
package main

import (
	"fmt"
	"os"

	redis "gopkg.in/redis.v5"
)

func do(rdb *redis.Client, args ...interface{}) *redis.Cmd {
	cmd := redis.NewCmd(args...)
	rdb.Process(cmd)
	check(cmd.Err(), args)
	return cmd
}

func doBool(rdb *redis.Client, args ...interface{}) *redis.BoolCmd {
	cmd := redis.NewBoolCmd(args...)
	rdb.Process(cmd)
	check(cmd.Err(), args)
	return cmd
}

func check(err error, args []interface{}) {
	if err != nil {
		fmt.Fprintf(os.Stderr, "%v: %v\n", args, err)
		os.Exit(1)
	}
}

func main() {
	addr := "localhost:6379"
	if len(os.Args) > 1 {
		addr = os.Args[1]
	}
	rdb := redis.NewClient(&redis.Options{Addr: addr})

	// 创建布隆过滤器（需 RedisBloom 模块）
	do(rdb, "BF.RESERVE", "users:filter", 0.01, 1_000_000)

	// 添加元素
	do(rdb, "BF.ADD", "users:filter", "user:1001")

	// 批量添加
	do(rdb, "BF.MADD", "users:filter", "user:1002", "user:1003", "user:1004")

	// 查询
	exists, _ := doBool(rdb, "BF.EXISTS", "users:filter", "user:1001").Result()
	fmt.Println("user:1001 exists:", exists) // true

	exists, _ = doBool(rdb, "BF.EXISTS", "users:filter", "user:9999").Result()
	fmt.Println("user:9999 exists:", exists) // 可能 false
}
