package policy

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The bypasses of issue 26: each ran under --deny 'bash(rm *)' before the command word was
// resolved.
var rmBypasses = []string{
	`\rm -rf build`, `/bin/rm -rf build`, `./rm -rf build`, `command rm -rf build`, `env rm -rf build`,
	`env -i FOO=1 rm -rf build`, `env -u HOME rm -rf build`, `x=rm; $x -rf build`, `$(echo rm) -rf build`,
	"`echo rm` -rf build", `r\m -rf build`, `"r"'m' -rf build`, `$'\x72m' -rf build`, `rm${IFS}-rf${IFS}build`,
	`exec rm -rf build`, `nohup rm -rf build`, `nice -n 5 rm -rf build`, `nice -5 rm -rf build`, `time -p rm -rf build`,
	`timeout -s KILL 5 rm -rf build`, `xargs -n 1 rm -rf <<< build`, `sudo -u root rm -rf build`, `doas rm -rf build`,
	`stdbuf -o0 rm -rf build`, `builtin command rm -rf build`, `bash -c 'rm -rf build'`, `sh -lc "ls; rm -rf build"`,
	`bash -c "bash -c 'rm -rf build'"`, `{rm,-rf,build}`, `/???/r? -rf build`, `eval rm -rf build`, `source ./x.sh`,
	`echo rm -rf build | bash`, `bash script.sh`, `f() { rm -rf build; }; f`, `ls() { echo; }; ls`,
	`find . -name build -exec rm -rf {} +`, `echo $(rm -rf build)`, `cat <(rm -rf build)`, `x=${y:-$(rm -rf build)}`,
	"cat <<EOF\n$(rm -rf build)\nEOF", `declare y=$(rm -rf build)`, `echo $((1 + $(rm -rf build)))`,
	`(( $(rm -rf build) ))`, `a[$(rm -rf build)]=1`, `trap 'rm -rf build' EXIT`, `env -S 'rm -rf build'`,
	`busybox rm -rf build`, `{,} rm -rf build`, `r{m,} -rf build`, `BASH_ENV=./x bash -c ls`, `env 'BASH_FUNC_ls%%=() { rm -rf build; }' bash -c ls`,
	`alias ls='rm -rf build'; ls`, `find /bin -name rm -exec {} -rf build \;`, `find . -exec sh -c '{} -rf build' \;`,
	`echo rm | xargs -I{} {} -rf build`, `echo rm | xargs -I % sh -c '% -rf build'`, `echo 'rm -rf build' | sudo -s`, `sudo sh -c 'rm -rf build'`, `PS4='$(rm -rf build)' bash -xc true`,
}

// The code bash arithmetic runs from a string: each ran `touch` with only echo allowed.
var arithmeticBypasses = []string{
	`declare -i y="x[\$(touch f)]"`, `y='x[$(touch f)]'; echo $((y))`, `y='x[$(touch f)]'; echo $(($y))`,
	`typeset -i y; y='x[$(touch f)]'`, `local -i y='x[$(touch f)]'`, `read y < f; echo $((y + 1))`,
	`y=1; read y < f; echo $((y))`, `[[ x -eq 1 ]]`, `[[ $y -gt 1 ]]`, `let 'y=x[$(touch f)]'`, `let y=z`,
	`printf -v 'x[$(touch f)]' 1`, `read 'a[$(touch f)]' <<< 1`, `echo ${a[y]}`, `echo ${s:y}`,
	`declare 'a[$(touch f)]=1'`, `x='a[$(touch f)]'; echo ${!x}`, `x='$(touch f)'; echo ${x@P}`,
	`for y in $(cat f); do echo $((y)); done`, `[[ -v 'a[$(touch f)]' ]]`,
	`y=1; unset y; : ${y:='x[$(touch f)]'}; echo $((y))`, `y=1; declare "$Z=x[\$(touch f)]"; echo $((y))`,
	`y=1; read "$Z" < f; echo $((y))`, `y=${#Z}$Z; echo $((y))`, `y="$((1))$Z"; echo $((y))`, `declare -n r=y; y=1; r='x[$(touch f)]'; echo $((y))`,
}

func denyRm(t *testing.T) *Policy {
	return &Policy{Mode: ModeAllow, Cwd: t.TempDir(), Deny: []Rule{mustRule(t, "bash(rm *)", "--deny 'bash(rm *)'")}}
}

func TestBypassesAreRefused(t *testing.T) {
	p := denyRm(t)
	for _, line := range rmBypasses {
		if err := p.Check(context.Background(), "bash", bash(line)); err == nil {
			t.Errorf("%q ran under --deny 'bash(rm *)'", line)
		}
	}
	echoOnly := &Policy{Mode: ModeDeny, Cwd: t.TempDir(), Allow: []Rule{mustRule(t, "bash(echo *)", "A")}}
	for _, line := range append(arithmeticBypasses, `declare x=1`, `export X=1`, `readonly x=1`, `typeset x=1`, `local x=1`, `let x=1`) {
		if err := echoOnly.Check(context.Background(), "bash", bash(line)); err == nil {
			t.Errorf("%q ran with only bash(echo *) allowed", line)
		}
	}
	for _, line := range arithmeticBypasses {
		if err := p.Check(context.Background(), "bash", bash(line)); err == nil {
			t.Errorf("%q ran under --deny 'bash(rm *)'", line)
		}
	}
}

func TestRefusalSaysWhy(t *testing.T) {
	p := denyRm(t)
	err := p.Check(context.Background(), "bash", bash(`x=rm; $x -rf build`))
	want := "Permission denied: bash($x -rf build): the command name is computed at run time, so --deny 'bash(rm *)' cannot be checked"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	err = p.Check(context.Background(), "bash", bash(`/bin/rm -rf build`))
	if want := "Permission denied: bash(/bin/rm -rf build) by rule --deny 'bash(rm *)'"; err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	deny := &Policy{Mode: ModeDeny, Cwd: t.TempDir(), Allow: []Rule{mustRule(t, "bash(echo *)", "A")}}
	err = deny.Check(context.Background(), "bash", bash(`y='x[$(touch f)]'; echo $((y))`))
	if want := "Permission denied: bash($((y))): arithmetic on $y runs any command substitution hidden in its value, so no --allow rule can be checked against it (--permission-mode deny)"; err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

// What can be checked still runs: rules refuse what they must, not every line.
func TestCheckableLinesRun(t *testing.T) {
	p := denyRm(t)
	for _, line := range []string{
		`ls -la`, `git status && go test ./...`, `echo "$HOME" $((1 + 2))`, `for ((i = 0; i < 3; i++)); do echo $i; done`,
		`n=5; echo $((n * 2))`, `n=$((3 + 4)); m="$#"; echo $((n * m + ${#PATH}))`, `for i in 1 2 3; do echo $((i + 1)); done`, `[[ 3 -gt 1 ]] && echo yes`, `command -v rm`,
		`nohup go build ./... > build.log 2>&1`, `bash -c 'go vet ./...'`, `find . -name '*.go' -exec gofmt -l {} +`,
		`x=$(git rev-parse HEAD); echo "$x"`, `echo ${#PATH}`, `env GOOS=linux go build`, `declare -A m; m[key]=1; echo ${m[key]}`, "cat <<'EOF'\n$(rm -rf build)\nEOF",
	} {
		if err := p.Check(context.Background(), "bash", bash(line)); err != nil {
			t.Errorf("%q: %v", line, err)
		}
	}
	for _, rule := range []string{"bash", "bash(*)"} {
		all := &Policy{Mode: ModeDeny, Cwd: t.TempDir(), Allow: []Rule{mustRule(t, rule, "A")}}
		if err := all.Check(context.Background(), "bash", bash(`x=ls; $x`)); err != nil {
			t.Errorf("--allow '%s' refused a computed command: %v", rule, err)
		}
	}
	allow := &Policy{Mode: ModeDeny, Cwd: t.TempDir(), Allow: []Rule{mustRule(t, "bash(go test *)", "A"), mustRule(t, "bash(echo *)", "B")}}
	for _, line := range []string{`timeout 60 go test ./...`, `go test -run "$T" ./...`, `echo $((1+2))`} {
		if err := allow.Check(context.Background(), "bash", bash(line)); err != nil {
			t.Errorf("allow list: %q: %v", line, err)
		}
	}
	for _, line := range []string{`sudo go test ./...`, `GOFLAGS=-toolexec=x go test ./...`, `env X=1 go test`, `./echo hi`, `echo hi > f`, `echo hi > "$f"`} {
		if err := allow.Check(context.Background(), "bash", bash(line)); err == nil {
			t.Errorf("allow list: %q ran", line)
		}
	}
}

func TestCommandsResolveWords(t *testing.T) {
	for line, want := range map[string]string{
		`\rm -rf 'out dir'`: "rm -rf out dir", `nohup nice -n 3 timeout 5 go test`: "go test",
		`env -i A=1 B=2 make`: "make", `xargs -0 -I{} cp {} x`: "cp {} x …", `sudo -u me -- ls`: "ls",
	} {
		got, err := Commands(line)
		if err != nil || len(got) != 1 || got[0] != want {
			t.Errorf("Commands(%q) = %q, %v; want %q", line, got, err, want)
		}
	}
}

func TestPathForms(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "proj")
	for _, d := range []string{"proj/secret", "outside"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(proj, ".env"), []byte("K=1"), 0o644)
	os.Symlink(".env", filepath.Join(proj, "envlink"))
	os.Symlink("secret", filepath.Join(proj, "out"))
	os.Symlink(filepath.Join(dir, "outside"), filepath.Join(proj, "away"))
	home, _ := os.UserHomeDir()
	p := &Policy{Mode: ModeAllow, Cwd: proj, Deny: []Rule{
		mustRule(t, "read(.env)", "D1"), mustRule(t, "write(secret/**)", "D2"), mustRule(t, "read("+home+"/**)", "D3"),
		mustRule(t, "write("+filepath.Join(dir, "outside")+"/**)", "D4")}}
	ctx := context.Background()
	for _, c := range []struct{ tool, path string }{
		{"read", "envlink"}, {"read", "./.env"}, {"read", "secret/../.env"}, {"read", proj + "/.env"}, {"read", "~/.bashrc"},
		{"write", "out/x"}, {"write", "out/new/dir/x"}, {"write", "away/x"}, {"grep", "envlink"}, {"ls", "secret/../.env"},
	} {
		if err := p.Check(ctx, c.tool, pathArg(c.path)); err == nil {
			t.Errorf("%s(%s) passed", c.tool, c.path)
		} else if !strings.Contains(err.Error(), "by rule D") {
			t.Errorf("%s(%s): %v", c.tool, c.path, err)
		}
	}
	for _, line := range []string{`echo x > out/x`, `cd secret && echo x > f`, `cat < envlink`, `echo x >> "$f"`} {
		if err := p.Check(ctx, "bash", bash(line)); err == nil {
			t.Errorf("bash(%s) passed", line)
		}
	}
	if err := p.Check(ctx, "write", pathArg("src/x")); err != nil {
		t.Errorf("write(src/x): %v", err)
	}
	if !p.Hidden(filepath.Join(proj, "envlink")) || !p.Hidden(filepath.Join(proj, ".env")) || p.Hidden(filepath.Join(proj, "secret")) {
		t.Error("Hidden does not follow the read rules")
	}
	allow := &Policy{Mode: ModeDeny, Cwd: proj, Allow: []Rule{mustRule(t, "write(out/**)", "A"), mustRule(t, "write(src/**)", "B")}}
	for _, path := range []string{"src/../main.go", "out/x"} { // out is a link to secret
		if err := allow.Check(ctx, "write", pathArg(path)); err == nil {
			t.Errorf("allow list: write(%s) passed", path)
		}
	}
}

// Words computed at run time may be anything: a deny pattern that could match refuses, an
// allow pattern allows only when a trailing * covers them.
func TestComputedWords(t *testing.T) {
	for _, c := range []struct {
		pattern, prefix string
		may, covers     bool
	}{
		{"rm *", "rm ", true, true}, {"git push*", "git ", true, false}, {"git * --output*", "git log ", true, false},
		{"git log *", "git log ", true, true}, {"echo*", "echo ", true, true}, {"ls", "ls ", false, false},
		{"rm *", "echo ", false, false}, {"go test ./...", "go ", true, false},
	} {
		if got := mayMatch(c.pattern, c.prefix); got != c.may {
			t.Errorf("mayMatch(%q, %q) = %v", c.pattern, c.prefix, got)
		}
		if got := covers(c.pattern, c.prefix); got != c.covers {
			t.Errorf("covers(%q, %q) = %v", c.pattern, c.prefix, got)
		}
	}
}
