// Package randtext draws random memory texts for the engine's tests.
//
// Words (English, Chinese, identifiers) come from a small vocabulary, so
// that queries and entries overlap, and now and then a text is long enough
// to be chunked. It is imported only by tests and imports nothing of
// Engram.
package randtext

import (
	"math/rand/v2"
	"strings"
	"time"
)

// Base is the time the random entries of a test are made around.
var Base = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

var words = strings.Fields("deploy server config tabs spaces python rust memory recall index " +
	"MAX_HISTORY_CHARS camelCase 发布 日期 配置 服务器 偏好 记忆 项目 Bluebird 2026 v1.2.3")

// Text draws one text from r.
func Text(r *rand.Rand) string {
	n := 1 + r.IntN(12)
	if r.IntN(8) == 0 {
		n = 150 + r.IntN(100)
	}
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[r.IntN(len(words))])
	}
	return b.String()
}
