package telemetry_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// The mapping table of docs/telemetry.md names every span, event and attribute of names.go.
func TestDocsNameEveryAttribute(t *testing.T) {
	doc, err := os.ReadFile("../docs/telemetry.md")
	if err != nil {
		t.Fatal(err)
	}
	file, err := parser.ParseFile(token.NewFileSet(), "names.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	ast.Inspect(file, func(node ast.Node) bool {
		spec, ok := node.(*ast.ValueSpec)
		if !ok || !strings.HasPrefix(spec.Names[0].Name, "Attr") && !strings.HasPrefix(spec.Names[0].Name, "Event") {
			return true
		}
		lit, ok := spec.Values[0].(*ast.BasicLit)
		if !ok {
			return true
		}
		name, _ := strconv.Unquote(lit.Value)
		n++
		if !strings.Contains(string(doc), "`"+name+"`") {
			t.Errorf("docs/telemetry.md does not name %s (%s)", name, spec.Names[0].Name)
		}
		return true
	})
	if n < 30 {
		t.Fatalf("found %d names in names.go", n)
	}
}
