package chat

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// benchWords make up the messages of the benchmark chats.
var benchWords = strings.Fields(`deploy frontend backend script make build test release server client
	database query index cache memory chat model prompt answer question tabs spaces format gofmt lint
	error timeout retry network proxy config file folder path window button theme font render stream
	coffee lunch weather travel train flight hotel book movie music garden recipe bread cheese
	部署 前端 后端 脚本 测试 发布 服务器 数据库 查询 缓存 记忆 模型 问题 回答 格式 错误 超时 网络
	配置 文件 窗口 按钮 主题 字体 咖啡 午饭 天气 旅行 火车 航班 酒店 电影 音乐 面包`)

// benchStore is a store of chats chats of msgs messages each, of about 30
// random words, written once for all runs of a benchmark.
func benchStore(b *testing.B, chats, msgs int) (*Store, []string) {
	b.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	texts := make([][]string, chats)
	for i := range texts {
		for range msgs {
			var sb strings.Builder
			for range 30 {
				sb.WriteString(benchWords[r.IntN(len(benchWords))])
				sb.WriteByte(' ')
			}
			texts[i] = append(texts[i], sb.String())
		}
	}
	return searchStore(b, texts...)
}

// BenchmarkSearch is a search over 1,000 chats of 40 messages once the index
// is built: what typing in the chat search costs per keystroke.
func BenchmarkSearch(b *testing.B) {
	cs, _ := benchStore(b, 1000, 40)
	cs.Search("warm up", 20)
	queries := []string{"deploy", "running tests", "咖啡", "coffee", "database timeout", "fro"}
	b.ResetTimer()
	for i := range b.N {
		cs.Search(queries[i%len(queries)], 20)
	}
}

// BenchmarkSearchAfterChange is a search after one chat got a message: the
// index is brought up to date for that chat alone.
func BenchmarkSearchAfterChange(b *testing.B) {
	cs, ids := benchStore(b, 1000, 40)
	cs.Search("warm up", 20)
	b.ResetTimer()
	for i := range b.N {
		id := ids[i%len(ids)]
		if err := cs.Update(id, func(c *Chat) bool {
			c.Messages = append(c.Messages, Message{ID: fmt.Sprintf("b%d", i), Role: RoleUser, Text: "deploy the coffee server"})
			return true
		}); err != nil {
			b.Fatal(err)
		}
		cs.Search("deploy", 20)
	}
}

// BenchmarkSearchFirst is the first search after the chats load: every chat
// file is read and indexed.
func BenchmarkSearchFirst(b *testing.B) {
	cs, _ := benchStore(b, 1000, 40)
	b.ResetTimer()
	for range b.N {
		fresh, err := Load(cs.dir, cs.now)
		if err != nil {
			b.Fatal(err)
		}
		fresh.Search("deploy", 20)
	}
}

// BenchmarkSearchLoaded is BenchmarkSearch in a store just loaded, whose
// chats are in their files: each search checks that they did not change.
func BenchmarkSearchLoaded(b *testing.B) {
	cs, _ := benchStore(b, 1000, 40)
	loaded, err := Load(cs.dir, cs.now)
	if err != nil {
		b.Fatal(err)
	}
	loaded.Search("warm up", 20)
	queries := []string{"deploy", "running tests", "咖啡", "coffee", "database timeout", "fro"}
	b.ResetTimer()
	for i := range b.N {
		loaded.Search(queries[i%len(queries)], 20)
	}
}
