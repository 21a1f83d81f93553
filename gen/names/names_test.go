package names

import "testing"

// TestGoEnumValue: enum values become readable Go name suffixes; ASCII
// values keep the names they always had.
func TestGoEnumValue(t *testing.T) {
	for v, want := range map[string]string{
		"needs_human": "NeedsHuman",
		"succeeded":   "Succeeded",
		"camelCase":   "CamelCase",
		"v1.2":        "V12",
		"":            "Empty",
		"π":           "Pi",
		"Ω-3":         "Omega3",
		"café":        "Cafe",
		"Ärger":       "Arger",
		"中":           "U4E2D",
		"a中b":         "AU4E2DB",
		"-":           "U002D",
		"→":           "U2192",
		"ß":           "U00DF",
	} {
		if got := GoEnumValue(v); got != want {
			t.Errorf("GoEnumValue(%q) = %q, want %q", v, got, want)
		}
	}
}

// TestGoExportedIsExported: every Go name made from a spec name is an
// exported identifier, whatever script the name is in.
func TestGoExportedIsExported(t *testing.T) {
	for name, want := range map[string]string{
		"run_id":          "RunID",
		"claude-opus-4.6": "ClaudeOpus4_6",
		"4k":              "X4k",
		"名前":              "X名前",
		"été":             "Été",
	} {
		if got := GoExported(name); got != want {
			t.Errorf("GoExported(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestTSProperty: a key that is an identifier is written as it is; any
// other is a string literal that JavaScript reads as the key, with the line
// terminators JavaScript source cannot hold unescaped escaped.
func TestTSProperty(t *testing.T) {
	for name, want := range map[string]string{
		"run_id":   "run_id",
		"$ref":     "$ref",
		"a-b":      `"a-b"`,
		"1st":      `"1st"`,
		"":         `""`,
		`say "hi"`: `"say \"hi\""`,
		`a\b`:      `"a\\b"`,
		"a\nb\x01": `"a\nb\u0001"`,
		"x\u2028y": `"x\u2028y"`,
		"<a&b>":    `"<a&b>"`,
		"café":     `"café"`,
	} {
		if got := TSProperty(name); got != want {
			t.Errorf("TSProperty(%q) = %s, want %s", name, got, want)
		}
	}
}

// TestIsGoReserved: Go's keywords and predeclared identifiers are reserved
// (a package named so could not be imported by name); other names are not.
func TestIsGoReserved(t *testing.T) {
	for name, want := range map[string]bool{
		"type": true, "package": true, "string": true, "iota": true, "nil": true,
		"any": true, "clear": true, "min": true, "error": true,
		"contract": false, "main": false, "unsafe": false, "String": false, "": false,
	} {
		if got := IsGoReserved(name); got != want {
			t.Errorf("IsGoReserved(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestTSCamel: a binding name is camelCase, with '_' after a reserved word
// (and the names the generated modules bind: z, tool) and before a digit.
func TestTSCamel(t *testing.T) {
	for name, want := range map[string]string{
		"save_snapshot":       "saveSnapshot",
		"automation.complete": "automationComplete",
		"run_id":              "runId",
		"HTTPServer":          "httpServer",
		"claude-opus-4.6":     "claudeOpus4_6",
		"4k":                  "_4k",
		"default":             "default_",
		"tool":                "tool_",
		"z":                   "z_",
		"string":              "string_",
	} {
		if got := TSCamel(name); got != want {
			t.Errorf("TSCamel(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestTSPascal: a type name is PascalCase, without Go's initialisms, and
// starts with 'T' where it would start with a digit.
func TestTSPascal(t *testing.T) {
	for name, want := range map[string]string{
		"no_slash":   "NoSlash",
		"run_id":     "RunId",
		"4k":         "T4k",
		"v1.2-beta":  "V1_2Beta",
		"workspaceX": "WorkspaceX",
	} {
		if got := TSPascal(name); got != want {
			t.Errorf("TSPascal(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestFileName: a tool's file name (OpenCode's tool id) keeps ASCII letters,
// digits, '_' and '-', and turns every other character into one '_'.
func TestFileName(t *testing.T) {
	for name, want := range map[string]string{
		"automation.complete": "automation_complete",
		"save-files_2":        "save-files_2",
		"a b/c":               "a_b_c",
		"café":                "caf_",
	} {
		if got := FileName(name); got != want {
			t.Errorf("FileName(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestSingular: a list's element type is named after the list's singular;
// a name with no plural ending gets "Item".
func TestSingular(t *testing.T) {
	for name, want := range map[string]string{
		"commands": "command",
		"entries":  "entry",
		"classes":  "class",
		"wishes":   "wish",
		"matches":  "match",
		"boxes":    "box",
		"glass":    "glass",
		"data":     "dataItem",
	} {
		if got := Singular(name); got != want {
			t.Errorf("Singular(%q) = %q, want %q", name, got, want)
		}
	}
}
