package specfuzz

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// The hard sets names are drawn from: what a language reserves or
// predeclares, what every JavaScript object inherits, names the generated
// code itself uses, integer-like, non-ASCII and punctuation keys. Case and
// separator twins are made from other names (twin).
var (
	goWords = []string{
		"break", "case", "chan", "const", "continue", "default", "defer", "else", "fallthrough", "for", "func",
		"go", "goto", "if", "import", "interface", "map", "package", "range", "return", "select", "struct",
		"switch", "type", "var", "any", "bool", "byte", "error", "false", "float64", "int", "iota", "len",
		"make", "new", "nil", "string", "true", "rune", "append", "cap", "clear", "close", "copy", "delete",
		"max", "min", "panic", "recover", "comparable", "fmt", "json", "errors", "ctx", "err", "data", "v", "d",
	}
	tsWords = []string{
		"abstract", "arguments", "as", "async", "await", "boolean", "catch", "class", "constructor", "debugger",
		"declare", "enum", "eval", "export", "extends", "finally", "from", "function", "get", "implements", "in",
		"infer", "instanceof", "is", "keyof", "let", "module", "namespace", "never", "null", "number", "object",
		"of", "private", "protected", "public", "readonly", "require", "set", "static", "super", "symbol", "this",
		"throw", "try", "typeof", "undefined", "unique", "unknown", "void", "while", "with", "yield", "z",
		"args", "input", "tool", "schema", "description", "execute", "parsed", "fingerprint", "params", "mode",
	}
	cueWords = []string{
		"package", "import", "for", "in", "if", "let", "true", "false", "null", "div", "mod", "quo", "rem",
		"bool", "int", "string", "number", "float", "bytes", "strings", "list", "close", "and", "or", "len",
	}
	protoWords = []string{
		"constructor", "__proto__", "hasOwnProperty", "isPrototypeOf", "propertyIsEnumerable", "toLocaleString",
		"toString", "valueOf", "__defineGetter__", "__defineSetter__", "__lookupGetter__", "__lookupSetter__",
	}
	intLike   = []string{"0", "1", "2", "01", "10", "-1", "1.5", "1e3", "4294967296", "9007199254740993"}
	nonASCII  = []string{"café", "naïve", "日本", "π", "Ω", "ß", "İstanbul", "e\u0301", "a\u200bb", "😀", "שלום", "ǅ", "ﬁle", "Straße"}
	punctKeys = []string{
		"a-b", "a.b", "a b", "a/b", "$ref", "@type", "a:b", "#x", "", " ", "a\"b", "a\\b", "${x}", "`x`", "*/",
		"</script>", "a\nb", "a'b", "__", "-", ".", "_hidden", "_id",
	}
)

// Natural names, as people name things (no two of a list twins: a spec
// of natural names only must pass vet).
var (
	fieldNames = []string{
		"path", "name", "query", "limit", "count", "tags", "items", "url", "message", "summary", "title", "body",
		"force", "dry_run", "timeout_ms", "retries", "ratio", "level", "kind", "files", "options", "target",
		"branch", "note", "id", "userId", "workspacePath", "outcome", "reason", "labels", "priority",
		"env", "key", "value", "enabled", "cwd", "command", "pattern", "max_results",
	}
	toolNames = []string{
		"save_snapshot", "create_ticket", "run_tests", "finish", "search_code", "open_pr", "automation.complete",
		"note-taker", "deploy_preview", "request_review", "list_files", "read_file", "fetchUrl", "post_comment",
	}
	modeNames   = []string{"coding", "setup", "review", "automation", "triage", "plan", "deploy", "research", "fix", "chat"}
	inputNames  = []string{"session_kind", "client_type", "session_type", "trigger", "source", "repo_kind"}
	paramNames  = []string{"repoName", "branch", "userName", "ticketId", "org", "language"}
	enumValues  = []string{"low", "normal", "high", "done", "blocked", "succeeded", "failed", "needs_human", "info", "warn", "error", "dotenv", "json", "yaml"}
	modelNames  = []string{"claude-sonnet-4.5", "claude-opus-4.6", "haiku", "gpt-5", "o3-mini", "gemini-2.5-pro", "sonnet"}
	providers   = []string{"anthropic", "openai", "google", "x-ai", "mistral"}
	agentNames  = []string{"build", "plan", "general", "explore"}
	wordsOfText = []string{"alpha", "beta", "gamma", "delta"}
)

// Sentences for descriptions, docs and prompts: plain prose and the
// characters generators must escape (quotes, backslashes, comment ends,
// template syntax, line separators, non-ASCII).
var sentences = []string{
	"Record the outcome when the work is done.",
	"Keep each change small; say what you left alone.",
	"Quotes \"like this\", 'these' and `backticks` stay as written.",
	"A backslash \\ and a template ${placeholder} are plain text.",
	"Unicode: café, naïve, 日本語, Ω, 😀, e\u0301.",
	"Comment ends */ and starts /* and <!-- and </script> are text too.",
	"Line\u2028separator and paragraph\u2029separator.",
	"Percent %s %d %v and \\n written out.",
	"{single braces} and }} {{ unpaired ones.",
	"Trailing spaces   ",
}

var (
	identRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	paramRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)
	agentRE = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)
	// cueIdentRE is what CUE reads as an identifier label (a leading '_'
	// makes a hidden field, a leading '#' a definition).
	cueIdentRE = regexp.MustCompile(`^[A-Za-z$_][A-Za-z0-9_$]*$`)
)

// hardKeys are the hard names for any string key (fields, tools, enum
// values, model IDs, option keys).
var hardKeys = slices.Concat(goWords, tsWords, cueWords, protoWords, intLike, nonASCII, punctKeys)

// hardMatching returns the hard names that match re.
func hardMatching(re *regexp.Regexp) []string {
	var out []string
	for _, n := range hardKeys {
		if re.MatchString(n) && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

var (
	hardIdents = hardMatching(identRE)
	hardParams = hardMatching(paramRE)
	hardAgents = hardMatching(agentRE)
)

// words splits a name into its words: at separators and lower-to-upper
// case changes.
func words(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = nil
		}
	}
	var prev rune
	for _, r := range s {
		switch {
		case r == '_' || r == '-' || r == '.' || r == ' ':
			flush()
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
		prev = r
	}
	flush()
	return out
}

// twinStyles spell a name's words in another case or with other separators.
var twinStyles = []func([]string) string{
	func(w []string) string { return strings.Join(w, "_") },
	func(w []string) string { return strings.Join(w, "-") },
	func(w []string) string { return strings.Join(w, ".") },
	func(w []string) string { return strings.Join(w, "__") },
	func(w []string) string { return strings.ToUpper(strings.Join(w, "_")) },
	func(w []string) string { return strings.Join(w, "") },
	func(w []string) string { // camelCase
		for i := 1; i < len(w); i++ {
			w[i] = upperFirst(w[i])
		}
		return strings.Join(w, "")
	},
	func(w []string) string { // PascalCase
		for i := range w {
			w[i] = upperFirst(w[i])
		}
		return strings.Join(w, "")
	},
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}
