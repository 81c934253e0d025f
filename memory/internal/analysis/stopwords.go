package analysis

// englishStop lists English function words and conversational fillers that
// carry no topic. They are dropped from documents and queries alike; words are
// compared lowercased with apostrophes removed ("don't" → "dont").
var englishStop = setOf(
	// articles, pronouns, determiners
	"a", "an", "the", "i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "ourselves",
	"you", "your", "yours", "yourself", "yourselves", "he", "him", "his", "himself", "she", "her",
	"hers", "herself", "it", "its", "itself", "they", "them", "their", "theirs", "themselves",
	"this", "that", "these", "those", "what", "which", "who", "whom", "whose", "when", "where",
	"why", "how", "there", "here", "some", "any", "each", "every", "all", "both", "few", "more",
	"most", "other", "such", "own", "same", "no", "nor", "not", "only", "than", "too", "very",
	"so", "just", "also", "then", "once", "again", "ever", "anything", "something", "everything",
	"nothing", "someone", "anyone", "everyone", "one", "ones",
	// auxiliaries and their contractions
	"am", "is", "are", "was", "were", "be", "been", "being", "have", "has", "had", "having", "do",
	"does", "did", "doing", "done", "will", "would", "shall", "should", "can", "could", "may",
	"might", "must", "im", "ive", "id", "ill", "youre", "youve", "youd", "youll", "hes", "shes",
	"its", "were", "weve", "wed", "well", "theyre", "theyve", "theyd", "theyll", "thats", "whats",
	"whos", "wheres", "whens", "hows", "theres", "heres", "lets", "isnt", "arent", "wasnt",
	"werent", "hasnt", "havent", "hadnt", "doesnt", "dont", "didnt", "wont", "wouldnt", "shant",
	"shouldnt", "cant", "cannot", "couldnt", "mustnt", "aint",
	// prepositions and conjunctions
	"and", "but", "if", "or", "because", "as", "until", "while", "of", "at", "by", "for", "with",
	"about", "against", "between", "into", "through", "during", "before", "after", "above",
	"below", "to", "from", "up", "down", "in", "out", "on", "off", "over", "under", "further",
	"via", "per", "though", "although", "whether", "either", "neither", "yet", "since", "unless",
	// fillers of chat
	"hey", "hi", "hello", "oh", "ah", "um", "uh", "hmm", "hm", "wow", "yeah", "yes", "yep", "yup",
	"ok", "okay", "haha", "hahaha", "lol", "please", "pls", "sure", "right", "really", "actually",
	"basically", "gonna", "wanna", "gotta", "kinda", "sorta", "thing", "things", "stuff",
	"let", "get", "got", "know", "think", "say", "said", "tell",
)

// chineseStopUni lists single Chinese characters too common to say anything on
// their own (particles, pronouns, copulas). They are dropped as unigram terms;
// bigrams containing them are kept.
var chineseStopUni = runeSet(
	"的", "了", "是", "在", "我", "你", "他", "她", "它", "们", "这", "那", "有", "和", "就", "都",
	"也", "很", "吗", "呢", "吧", "啊", "呀", "哦", "嗯", "不", "没", "个", "一", "着", "过", "要",
	"会", "能", "到", "说", "对", "把", "被", "给", "让", "与", "及", "或", "而", "之", "其", "得",
	"地", "么", "什", "怎", "还", "又", "再", "才", "已", "可", "以", "为", "所", "因", "但", "如",
	"果", "些", "哪", "谁", "时", "候", "好", "真", "太", "更", "最", "去", "来", "上", "下", "里",
	"中", "多", "少", "自", "己", "嘛", "哈", "喔", "哇", "诶", "欸", "咯", "啦", "于", "并",
	"等", "从", "向", "跟", "同", "将", "经", "请", "您", "咱", "做", "想", "看", "用",
)

// chineseStopBi lists common two-character function words and vague chat
// words ("继续", "好的") that say nothing about a topic.
var chineseStopBi = pairSet(
	"我们", "你们", "他们", "她们", "它们", "咱们", "自己", "什么", "怎么", "怎样", "为什", "么时",
	"时候", "这个", "那个", "一个", "这些", "那些", "这样", "那样", "这么", "那么", "就是", "还是",
	"但是", "因为", "所以", "如果", "虽然", "而且", "或者", "已经", "可以", "可能", "应该", "知道",
	"觉得", "然后", "还有", "没有", "不是", "是不", "是的", "对的", "好的", "好吧", "嗯嗯", "哈哈",
	"谢谢", "继续", "一下", "一些", "有点", "有些", "非常", "特别", "真的", "其实", "现在", "以后",
	"之后", "以前", "之前", "的话", "我的", "你的", "他的", "她的", "的时", "了一", "是一", "我是",
	"你是", "我也", "我想", "我要", "你有", "有没", "没什", "一起", "请问", "帮我",
)

// isParticle reports whether r is a Chinese particle or pronoun that makes
// a meaningless bigram with whatever stands next to it (的感, 了一, 我今).
func isParticle(r rune) bool {
	switch r {
	case '的', '了', '着', '吗', '呢', '吧', '啊', '呀', '嘛', '哦', '我', '你', '他', '她', '它', '是', '在', '很', '就', '都', '也', '还':
		return true
	}
	return false
}

func runeSet(chars ...string) map[rune]struct{} {
	m := make(map[rune]struct{}, len(chars))
	for _, c := range chars {
		m[[]rune(c)[0]] = struct{}{}
	}
	return m
}

func pairSet(pairs ...string) map[uint64]struct{} {
	m := make(map[uint64]struct{}, len(pairs))
	for _, p := range pairs {
		if r := []rune(p); len(r) == 2 {
			m[uint64(r[0])<<32|uint64(r[1])] = struct{}{}
		}
	}
	return m
}

func setOf(words ...string) map[string]struct{} {
	m := make(map[string]struct{}, len(words))
	for _, w := range words {
		m[w] = struct{}{}
	}
	return m
}
