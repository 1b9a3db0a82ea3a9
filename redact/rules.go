package redact

import (
	"bytes"
	"encoding/base64"
	"math"
)

// The built-in redaction rules. Each is a small hand-written matcher rather than a regular
// expression: the stream is mostly long strings, and a scanner that visits word starts only
// crosses text at close to memory speed, where an alternation of a few dozen regexps would
// not. Shapes and thresholds follow the public gitleaks rules (MIT) in spirit.
//
// Every matcher answers for one position of a text it may see only part of: a match, no
// match, or "need more text". It answers match or no match only when no continuation of the
// text could change the answer, which is what lets a stream of deltas be redacted exactly as
// its whole text would be (see scan.go). A match starts at a word start (or at the
// first dash of a private-key header) and may look behind, into text already released, but
// never further than lookBehind bytes.

// Rule describes one built-in rule.
type Rule struct {
	ID          string
	Description string
}

// Built-in rule indexes; the order is the priority at one position and the order of
// Rules.
const (
	ruleAnthropic = iota
	ruleOpenRouter
	ruleOpenAI
	ruleGroq
	ruleXAI
	ruleGoogle
	ruleGitHubPAT
	ruleGitHubOAuth
	ruleGitHubApp
	ruleGitHubRefresh
	ruleGitHubFineGrained
	ruleGitLab
	ruleSlackBot
	ruleSlackUser
	ruleSlackLegacy
	ruleSlackWebhook
	ruleStripeSecret
	ruleStripeRestricted
	ruleStripeWebhook
	ruleAWSAccessKey
	ruleAWSSecretKey
	ruleHuggingFace
	ruleNPM
	ruleSendGrid
	ruleAzureStorage
	rulePrivateKey
	ruleJWT
	ruleBearer
	ruleBasicAuth
	ruleURLPassword
	rulePasswordFlag
	ruleGeneric
	numBuiltinRules
)

var builtinRules = [numBuiltinRules]Rule{
	ruleAnthropic:         {"anthropic-api-key", "Anthropic API key (sk-ant-…)"},
	ruleOpenRouter:        {"openrouter-api-key", "OpenRouter API key (sk-or-v1-…)"},
	ruleOpenAI:            {"openai-api-key", "OpenAI API key (sk-…, sk-proj-…, sk-svcacct-…, sk-admin-…)"},
	ruleGroq:              {"groq-api-key", "Groq API key (gsk_…)"},
	ruleXAI:               {"xai-api-key", "xAI API key (xai-…)"},
	ruleGoogle:            {"google-api-key", "Google API key (AIza…)"},
	ruleGitHubPAT:         {"github-pat", "GitHub personal access token (ghp_…)"},
	ruleGitHubOAuth:       {"github-oauth", "GitHub OAuth token (gho_…)"},
	ruleGitHubApp:         {"github-app-token", "GitHub app token (ghu_…, ghs_…)"},
	ruleGitHubRefresh:     {"github-refresh-token", "GitHub refresh token (ghr_…)"},
	ruleGitHubFineGrained: {"github-fine-grained-pat", "GitHub fine-grained token (github_pat_…)"},
	ruleGitLab:            {"gitlab-pat", "GitLab personal access token (glpat-…)"},
	ruleSlackBot:          {"slack-bot-token", "Slack bot token (xoxb-…)"},
	ruleSlackUser:         {"slack-user-token", "Slack user token (xoxp-…)"},
	ruleSlackLegacy:       {"slack-legacy-token", "Slack workspace or refresh token (xoxa-…, xoxr-…)"},
	ruleSlackWebhook:      {"slack-webhook-url", "Slack webhook (hooks.slack.com/services/…)"},
	ruleStripeSecret:      {"stripe-secret-key", "Stripe secret key (sk_live_…, sk_test_…)"},
	ruleStripeRestricted:  {"stripe-restricted-key", "Stripe restricted key (rk_live_…, rk_test_…)"},
	ruleStripeWebhook:     {"stripe-webhook-secret", "Stripe webhook signing secret (whsec_…)"},
	ruleAWSAccessKey:      {"aws-access-key-id", "AWS access key id (AKIA…, ASIA…)"},
	ruleAWSSecretKey:      {"aws-secret-access-key", "AWS secret access key (40 characters) assigned to a name holding aws and secret in either order"},
	ruleHuggingFace:       {"huggingface-token", "Hugging Face access token (hf_…)"},
	ruleNPM:               {"npm-token", "npm access token (npm_…)"},
	ruleSendGrid:          {"sendgrid-api-key", "SendGrid API key (SG.….…)"},
	ruleAzureStorage:      {"azure-storage-key", "Azure storage account key (AccountKey=…)"},
	rulePrivateKey:        {"private-key", "Private key block (-----BEGIN … PRIVATE KEY----- to its END line)"},
	ruleJWT:               {"jwt", "JSON Web Token (eyJ….eyJ….…)"},
	ruleBearer:            {"bearer-token", "Bearer token (Authorization: Bearer …)"},
	ruleBasicAuth:         {"basic-auth", "Basic credentials (Authorization: Basic …, base64 of user:password)"},
	ruleURLPassword:       {"url-password", "Password in a URL (scheme://user:PASSWORD@host)"},
	rulePasswordFlag:      {"password-flag", "Password given as a command-line flag (--password VALUE, --password=VALUE, -pVALUE)"},
	ruleGeneric:           {"generic-secret", "Value assigned to a password, secret, token or api_key name (high entropy; any password of 8+ characters)"},
}

// Rules lists the built-in rules in priority order.
func Rules() []Rule { return append([]Rule(nil), builtinRules[:]...) }

// charClass is a set of bytes.
type charClass [256]bool

func newClass(sets ...string) *charClass {
	var c charClass
	for _, s := range sets {
		for i := 0; i < len(s); i++ {
			if i+2 < len(s) && s[i+1] == '-' && isAlnum(s[i]) && isAlnum(s[i+2]) {
				for b := int(s[i]); b <= int(s[i+2]); b++ {
					c[b] = true
				}
				i += 2
				continue
			}
			c[s[i]] = true
		}
	}
	return &c
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func (c *charClass) union(o *charClass) *charClass {
	u := *c
	for i, v := range o {
		u[i] = u[i] || v
	}
	return &u
}

var (
	identChars  = newClass("A-Z", "a-z", "0-9", "_")
	alnum       = newClass("A-Z", "a-z", "0-9")
	alnumDash   = newClass("A-Z", "a-z", "0-9", "_-")
	alnumUnder  = newClass("A-Z", "a-z", "0-9", "_")
	upperDigits = newClass("A-Z", "0-9")
	b64url      = newClass("A-Z", "a-z", "0-9", "_-")
	jwtChars    = newClass("A-Z", "a-z", "0-9", "_.=+/-")
	webhookBody = newClass("A-Z", "a-z", "0-9", "_+/-")
	bearerChars = newClass("A-Z", "a-z", "0-9", "._~+/=-")
	keyChars    = newClass("A-Z", "a-z", "0-9", "_.-")
	valueChars  = newClass("A-Z", "a-z", "0-9", "_.=+/~!@#%^&*-")
	base64Chars = newClass("A-Z", "a-z", "0-9", "/+=")
	userChars   = newClass("A-Z", "a-z", "0-9", "._~%!$&'()*+,;=-")
	passChars   = userChars.union(newClass(":"))
	schemeChars = newClass("A-Z", "a-z", "0-9", "+.-")
	labelChars  = newClass("A-Z", "0-9", " ")
	blanks      = newClass(" \t")
)

// lookBehind bounds how far a matcher reads before its position; streams keep at least
// this much released text as context.
const lookBehind = 96

// maxHold bounds the text a stream holds back while a matcher needs more of it.
const maxHold = 256

// Matcher answers.
const (
	noMatch = iota
	match
	needMore
)

// hit is a matcher's answer at one position: a redaction of [start, end), after which the
// scan swallows the rest of a run of swallow bytes, or a whole private-key block.
type hit struct {
	status   uint8
	start    int
	end      int
	rule     int
	swallow  *charClass
	keyBlock bool
}

// tokenRule is a literal prefix followed by at least min body bytes. Once min is reached
// the token is certain, and the rest of its run is swallowed, so that a key longer than
// the usual shape is still removed whole.
type tokenRule struct {
	prefix string
	rule   int
	body   *charClass
	min    int
}

var tokenRules = []tokenRule{
	{"sk-ant-", ruleAnthropic, alnumDash, 32},
	{"sk-or-v1-", ruleOpenRouter, alnum, 32},
	{"sk-proj-", ruleOpenAI, alnumDash, 32},
	{"sk-svcacct-", ruleOpenAI, alnumDash, 32},
	{"sk-admin-", ruleOpenAI, alnumDash, 32},
	{"sk-", ruleOpenAI, alnumDash, 32},
	{"sk_live_", ruleStripeSecret, alnum, 20},
	{"sk_test_", ruleStripeSecret, alnum, 20},
	{"rk_live_", ruleStripeRestricted, alnum, 20},
	{"rk_test_", ruleStripeRestricted, alnum, 20},
	{"whsec_", ruleStripeWebhook, alnum, 24},
	{"gsk_", ruleGroq, alnum, 40},
	{"xai-", ruleXAI, alnum, 40},
	{"AIza", ruleGoogle, alnumDash, 30},
	{"ghp_", ruleGitHubPAT, alnum, 36},
	{"gho_", ruleGitHubOAuth, alnum, 36},
	{"ghu_", ruleGitHubApp, alnum, 36},
	{"ghs_", ruleGitHubApp, alnum, 36},
	{"ghr_", ruleGitHubRefresh, alnum, 36},
	{"github_pat_", ruleGitHubFineGrained, alnumUnder, 40},
	{"glpat-", ruleGitLab, alnumDash, 20},
	{"xoxb-", ruleSlackBot, alnumDash, 20},
	{"xoxp-", ruleSlackUser, alnumDash, 20},
	{"xoxa-", ruleSlackLegacy, alnumDash, 20},
	{"xoxr-", ruleSlackLegacy, alnumDash, 20},
	{"hf_", ruleHuggingFace, alnum, 34},
	{"npm_", ruleNPM, alnum, 36},
	{"AKIA", ruleAWSAccessKey, upperDigits, 16},
	{"ASIA", ruleAWSAccessKey, upperDigits, 16},
	{"ABIA", ruleAWSAccessKey, upperDigits, 16},
	{"ACCA", ruleAWSAccessKey, upperDigits, 16},
}

// tokensByFirst indexes tokenRules by the first byte of their prefix.
var tokensByFirst = func() (t [256][]tokenRule) {
	for _, r := range tokenRules {
		t[r.prefix[0]] = append(t[r.prefix[0]], r)
	}
	return t
}()

// prefixAt compares w[i:] with p: match, noMatch, or needMore when w ends inside p.
func prefixAt(w []byte, i int, p string, atEOF bool) uint8 {
	for k := 0; k < len(p); k++ {
		if i+k >= len(w) {
			return ranOut(atEOF)
		}
		if w[i+k] != p[k] {
			return noMatch
		}
	}
	return match
}

func ranOut(atEOF bool) uint8 {
	if atEOF {
		return noMatch
	}
	return needMore
}

// runAt counts bytes of class c from i, up to limit; more is true when the run reached the
// end of w before limit and w is not the whole text (so the run may go on).
func runAt(w []byte, i int, c *charClass, limit int, atEOF bool) (n int, more bool) {
	for n < limit && i+n < len(w) && c[w[i+n]] {
		n++
	}
	return n, !atEOF && n < limit && i+n == len(w)
}

func (t *tokenRule) at(w []byte, i int, atEOF bool) hit {
	if s := prefixAt(w, i, t.prefix, atEOF); s != match {
		return hit{status: s, start: i}
	}
	j := i + len(t.prefix)
	n, more := runAt(w, j, t.body, t.min, atEOF)
	switch {
	case n == t.min:
		return hit{status: match, start: i, end: j + n, rule: t.rule, swallow: t.body}
	case more:
		return hit{status: ranOut(atEOF), start: i}
	}
	return hit{start: i}
}

// jwtAt: eyJ + at least 8 base64url bytes + "." + eyJ: a JSON header and payload; the rest
// of the token (payload, signature) is swallowed.
func jwtAt(w []byte, i int, atEOF bool) hit {
	if s := prefixAt(w, i, "eyJ", atEOF); s != match {
		return hit{status: s, start: i}
	}
	j := i + 3
	n, more := runAt(w, j, b64url, maxHold, atEOF)
	if more {
		return hit{status: ranOut(atEOF), start: i}
	}
	if n < 8 {
		return hit{start: i}
	}
	j += n
	if s := prefixAt(w, j, ".eyJ", atEOF); s != match {
		return hit{status: s, start: i}
	}
	return hit{status: match, start: i, end: j + 4, rule: ruleJWT, swallow: jwtChars}
}

// webhookAt: hooks.slack.com/services|workflows|triggers/ and an id path.
func webhookAt(w []byte, i int, atEOF bool) hit {
	if s := prefixAt(w, i, "hooks.slack.com/", atEOF); s != match {
		return hit{status: s, start: i}
	}
	j := i + len("hooks.slack.com/")
	best := uint8(noMatch)
	for _, kind := range [...]string{"services/", "workflows/", "triggers/"} {
		switch prefixAt(w, j, kind, atEOF) {
		case match:
			k := j + len(kind)
			n, more := runAt(w, k, webhookBody, 16, atEOF)
			if n == 16 {
				return hit{status: match, start: i, end: k + n, rule: ruleSlackWebhook, swallow: webhookBody}
			}
			if more {
				return hit{status: ranOut(atEOF), start: i}
			}
			return hit{start: i}
		case needMore:
			best = needMore
		}
	}
	return hit{status: best, start: i}
}

// privateKeyAt: a "-----BEGIN … PRIVATE KEY-----" header starts a block that runs to its
// END line, or to the end of the text when there is none.
func privateKeyAt(w []byte, i int, atEOF bool) hit {
	if s := prefixAt(w, i, "-----BEGIN ", atEOF); s != match {
		return hit{status: s, start: i}
	}
	j := i + len("-----BEGIN ")
	n, more := runAt(w, j, labelChars, 48, atEOF)
	if more {
		return hit{status: ranOut(atEOF), start: i}
	}
	label := bytes.TrimRight(w[j:j+n], " ")
	if !bytes.HasSuffix(label, []byte("PRIVATE KEY")) && !bytes.HasSuffix(label, []byte("PRIVATE KEY BLOCK")) {
		return hit{start: i}
	}
	j += n
	if s := prefixAt(w, j, "-----", atEOF); s != match {
		return hit{status: s, start: i}
	}
	return hit{status: match, start: i, end: j + 5, rule: rulePrivateKey, keyBlock: true}
}

// keyBlockEnd finds the END line of a private-key block in w[pos:]: it returns the index
// after the line's closing dashes, or -1 with hold, the index from which a footer may still
// be arriving (len(w) when none can).
func keyBlockEnd(w []byte, pos int, atEOF bool) (end, hold int) {
	const footer = "-----END "
	for from := pos; ; {
		f := bytes.Index(w[from:], []byte(footer))
		if f < 0 {
			hold = len(w)
			if !atEOF {
				// A footer may begin in the last few bytes.
				for k := max(from, len(w)-len(footer)+1); k < len(w); k++ {
					if bytes.HasPrefix([]byte(footer), w[k:]) {
						hold = k
						break
					}
				}
			}
			return -1, hold
		}
		f += from
		j := f + len(footer)
		n, more := runAt(w, j, labelChars, 48, atEOF)
		if more {
			if atEOF {
				return -1, len(w)
			}
			return -1, f
		}
		switch prefixAt(w, j+n, "-----", atEOF) {
		case match:
			return j + n + 5, 0
		case needMore:
			return -1, f
		}
		from = f + 1
	}
}

// assignment kinds: what a name says about the value assigned to it.
const (
	kindNone = iota
	kindSecret
	kindPassword // a name ending in password or passwd: any password-like value counts
	kindAWSSecret
	kindAzureKey
	kindAuthorization // an Authorization header's value: "Basic …" is judged as credentials
)

// secretNameSuffixes are the ends of names whose values are secrets, compared with the
// name lower-cased and without '_', '-' and '.' (so DB_PASSWORD, dbPassword, db.password
// and db-password all end in "password"). Only the end counts: max_tokens and tokenizer
// are not secrets.
var secretNameSuffixes = []string{
	"password", "passwd", "passphrase", "secret", "secretkey", "token", "apikey",
	"accesskey", "authkey", "privatekey", "accountkey", "credential", "credentials",
}

// awsSecretNameSuffixes end, besides secretNameSuffixes, the names of an AWS secret key
// (names holding both "aws" and "secret"), whose words come in any order:
// SecretAccessKey_aws, secret_aws_key, AWS_SECRET_ACCESS_KEY.
var awsSecretNameSuffixes = []string{"key", "aws"}

// secretNameTail is a quick rejection on the last two letters of a name, which every
// suffix above ends in.
func secretNameTail(a, b byte) bool {
	switch uint16(a|0x20)<<8 | uint16(b|0x20) {
	case 'r'<<8 | 'd', 'w'<<8 | 'd', 's'<<8 | 'e', 'e'<<8 | 't', 'e'<<8 | 'y', 'e'<<8 | 'n', 'a'<<8 | 'l', 'l'<<8 | 's', 'w'<<8 | 's':
		return true
	}
	return false
}

// nameKind classifies an assignment's name.
func nameKind(name []byte) int {
	const header = "authorization"
	if len(name) >= len(header) && name[len(name)-1]|0x20 == 'n' && asciiEqualFold(name[len(name)-len(header):], header) {
		return kindAuthorization
	}
	if len(name) < 3 || len(name) > 64 || !secretNameTail(name[len(name)-2], name[len(name)-1]) {
		return kindNone
	}
	var buf [64]byte
	n := 0
	for _, c := range name {
		switch {
		case c == '_' || c == '-' || c == '.':
			continue
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		}
		buf[n] = c
		n++
	}
	norm := buf[:n]
	aws := bytes.Contains(norm, []byte("aws")) && bytes.Contains(norm, []byte("secret"))
	if aws {
		for _, s := range awsSecretNameSuffixes {
			if bytes.HasSuffix(norm, []byte(s)) {
				return kindAWSSecret
			}
		}
	}
	for _, s := range secretNameSuffixes {
		if bytes.HasSuffix(norm, []byte(s)) {
			switch {
			case aws:
				return kindAWSSecret
			case s == "password" || s == "passwd":
				return kindPassword
			case s == "accountkey":
				return kindAzureKey
			}
			return kindSecret
		}
	}
	return kindNone
}

// secretValue tells whether v, assigned to a name of kind, looks like a secret rather than
// code or prose: long enough, with letters and digits, and of high entropy.
func secretValue(v []byte, kind int) (rule int, ok bool) {
	if kind == kindAWSSecret && len(v) == 40 {
		n, _ := runAt(v, 0, base64Chars, 40, true)
		if n == 40 {
			return ruleAWSSecretKey, true
		}
	}
	if kind == kindAzureKey && len(v) >= 40 {
		if n, _ := runAt(v, 0, base64Chars, len(v), true); n == len(v) {
			return ruleAzureStorage, true
		}
	}
	if len(v) < 8 {
		return 0, false
	}
	var letters, digits bool
	for _, c := range v {
		switch {
		case c >= '0' && c <= '9':
			digits = true
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letters = true
		}
	}
	return ruleGeneric, letters && digits && entropy(v) >= 3.0
}

// plainPassword tells whether v, assigned to a password name in a place where a value
// ends (a quoted string, the end of a line, a flag's argument), is a password even though
// its entropy is low: 8 bytes or more, a letter or digit, a few distinct bytes, and not
// what code or documentation put there (placeholders, identifiers, METAVARS).
func plainPassword(v []byte) bool {
	if len(v) < 8 {
		return false
	}
	var alnums, lower, upperAfterLower, other bool
	var seen [256]bool
	distinct := 0
	for k, c := range v {
		if !seen[c] {
			seen[c] = true
			distinct++
		}
		switch {
		case c >= 'a' && c <= 'z':
			alnums, lower = true, true
		case c >= 'A' && c <= 'Z':
			alnums = true
			upperAfterLower = upperAfterLower || k > 0 && v[k-1] >= 'a' && v[k-1] <= 'z'
		case c >= '0' && c <= '9':
			alnums = true
			other = true
		case c == '_':
		default:
			other = true
		}
	}
	if !alnums || distinct < 3 || placeholderPasswords[string(bytes.ToLower(v))] {
		return false
	}
	if !other && (!lower || upperAfterLower) {
		return false // an identifier: a METAVAR, CamelCase or camelCase name
	}
	low := bytes.ToLower(v)
	if bytes.Contains(low, []byte("passw")) && (bytes.ContainsAny(v, "_-.") || bytes.HasPrefix(low, []byte("your"))) {
		return false // new_password, db.password, your-password-here
	}
	return true
}

// dottedName tells whether v is a reference in code, such as settings.API_KEY_V2: names
// joined by dots.
func dottedName(v []byte) bool {
	if bytes.IndexByte(v, '.') < 0 {
		return false
	}
	for _, part := range bytes.Split(v, []byte(".")) {
		if len(part) == 0 || part[0] >= '0' && part[0] <= '9' {
			return false
		}
		for _, c := range part {
			if !identChars[c] {
				return false
			}
		}
	}
	return true
}

// entropy is the Shannon entropy of v in bits per byte.
func entropy(v []byte) float64 {
	var counts [256]uint16
	for _, c := range v {
		counts[c]++
	}
	h := 0.0
	n := float64(len(v))
	for _, k := range counts {
		if k > 0 {
			p := float64(k) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// maxValue bounds the value a generic assignment judges; a longer one is judged on its
// first maxValue bytes and, when it is a secret, swallowed whole.
const maxValue = 128

// assignment is what precedes a value: the kind of its name and how it is written.
type assignment struct {
	kind  int
	quote byte // the quote the value opens with, or 0
	flag  bool // the name is a command-line flag (--password VALUE, --password=VALUE)
	code  bool // NAME := value or NAME => value: a declaration in code
}

// valueEnd tells whether c, just after an unquoted value, ends it where a value may end:
// the end of a line (or of a flag's argument, for a flag), or a URL query's '&'.
func valueEnd(c byte, flag bool) bool {
	return c == '\n' || c == '\r' || c == '&' || flag && (isSpace(c) || c == ';' || c == '|' || c == ')')
}

// valueAt judges the value starting at i, assigned as a says.
func valueAt(w []byte, i int, a assignment, atEOF bool) hit {
	n, more := runAt(w, i, valueChars, maxValue, atEOF)
	if more {
		return hit{status: ranOut(atEOF), start: i}
	}
	passwordRule := ruleGeneric
	if a.flag {
		passwordRule = rulePasswordFlag
	}
	if n == maxValue {
		if rule, ok := secretValue(w[i:i+n], a.kind); ok {
			if a.kind == kindPassword {
				rule = passwordRule
			}
			return hit{status: match, start: i, end: i + n, rule: rule, swallow: valueChars}
		}
		return hit{start: i}
	}
	end := i + n
	if end < len(w) && w[end] == '(' {
		return hit{start: i} // a call, not a value
	}
	// Where the value ends tells whether it is a whole value: up to its closing quote, or
	// to the end of the line (of the text).
	whole := end == len(w)
	if end < len(w) {
		if a.quote != 0 {
			whole = w[end] == a.quote
		} else {
			whole = valueEnd(w[end], a.flag)
		}
	}
	trimmed := end
	for trimmed > i && (w[trimmed-1] == '.' || w[trimmed-1] == ',') {
		trimmed-- // the end of a sentence
	}
	v := w[i:trimmed]
	if a.quote == 0 && dottedName(v) {
		return hit{start: i} // settings.API_KEY_V2: a reference, not a value
	}
	if rule, ok := secretValue(v, a.kind); ok {
		if a.kind == kindPassword {
			rule = passwordRule
		}
		return hit{status: match, start: i, end: trimmed, rule: rule}
	}
	if a.kind == kindPassword && whole && !a.code && plainPassword(w[i:end]) && (a.quote != 0 || a.flag || !isWord(w[i:end])) {
		// (Unquoted, a word is more often a variable than a password: x.password = credentials.)
		return hit{status: match, start: i, end: end, rule: passwordRule}
	}
	return hit{start: i}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' }

func isQuote(c byte) bool { return c == '"' || c == '\'' || c == '`' }

// skipSpacesBack steps j back over at most limit spaces and tabs.
func skipSpacesBack(w []byte, j, limit int) int {
	for k := 0; k < limit && j >= 0 && isSpace(w[j]); k++ {
		j--
	}
	return j
}

// assignmentAt: a value at i assigned to a secret name: NAME = value, NAME: value,
// NAME := value, "NAME": "value", NAME => value, or a flag and its argument, --NAME value.
// Only the value is redacted.
func assignmentAt(w []byte, i int, atEOF bool) hit {
	var a assignment
	j := i - 1
	if isQuote(w[j]) {
		a.quote = w[j]
		j--
	}
	k := skipSpacesBack(w, j, 4)
	spaced := k < j
	j = k
	if j < 0 {
		return hit{start: i}
	}
	sep := w[j]
	switch sep {
	case '=':
		j--
		if j >= 0 && (w[j] == '=' || w[j] == '!' || w[j] == '<' || w[j] == '>') {
			return hit{start: i} // a comparison
		}
		if j >= 0 && w[j] == ':' {
			a.code = true
			j--
		}
	case ':':
		j--
	case '>':
		if j < 1 || w[j-1] != '=' {
			return hit{start: i}
		}
		a.code = true
		j -= 2
	default:
		if !spaced || !keyChars[sep] {
			return hit{start: i}
		}
		sep = ' ' // a flag and its argument
	}
	if sep != ' ' {
		j = skipSpacesBack(w, j, 4)
		if j >= 0 && isQuote(w[j]) {
			j--
		}
	}
	end := j + 1
	for j >= 0 && keyChars[w[j]] && end-j <= 67 {
		j--
	}
	if j >= 0 && keyChars[w[j]] {
		return hit{start: i} // a name too long to judge
	}
	name := w[j+1 : end]
	a.flag = len(name) > 2 && name[0] == '-' && name[1] == '-'
	if sep == ' ' && !a.flag {
		return hit{start: i}
	}
	a.kind = nameKind(name)
	if a.kind == kindNone {
		return hit{start: i}
	}
	return valueAt(w, i, a, atEOF)
}

// dashPAt: a password glued to -p, as mysql takes it (-pVALUE), at the 'p' of a -p that
// begins an argument. The value needs a letter, and a digit or a symbol, so that -pedantic
// and -print are options, not passwords.
func dashPAt(w []byte, i int, atEOF bool) hit {
	if w[i] != 'p' || w[i-1] != '-' || i >= 2 && !isSpace(w[i-2]) && !isQuote(w[i-2]) && w[i-2] != '\n' {
		return hit{start: i}
	}
	n, more := runAt(w, i+1, valueChars, maxValue, atEOF)
	if more {
		return hit{status: ranOut(atEOF), start: i}
	}
	end := i + 1 + n
	if n < 8 || n == maxValue || end < len(w) && !valueEnd(w[end], true) && !isQuote(w[end]) {
		return hit{start: i}
	}
	v := w[i+1 : end]
	var letter, strong bool
	for _, c := range v {
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letter = true
		case c >= '0' && c <= '9' || bytes.IndexByte([]byte("!@#%^&*~+/="), c) >= 0:
			strong = true
		}
	}
	if !letter || !strong || bytes.IndexByte(v, '=') >= 0 || !plainPassword(v) {
		// (-prefix=x, -pprof=TYPE: an option and its argument.)
		return hit{start: i}
	}
	return hit{status: match, start: i + 1, end: end, rule: rulePasswordFlag}
}

// sendgridAt: SG. + 22 base64url bytes + "." + 43 more (the key's id and secret); the
// rest of the run is swallowed.
func sendgridAt(w []byte, i int, atEOF bool) hit {
	if s := prefixAt(w, i, "SG.", atEOF); s != match {
		return hit{status: s, start: i}
	}
	j := i + 3
	n, more := runAt(w, j, b64url, 33, atEOF)
	if more {
		return hit{status: ranOut(atEOF), start: i}
	}
	if n < 16 || n > 32 {
		return hit{start: i}
	}
	j += n
	if s := prefixAt(w, j, ".", atEOF); s != match {
		return hit{status: s, start: i}
	}
	j++
	n, more = runAt(w, j, b64url, 32, atEOF)
	switch {
	case n == 32:
		return hit{status: match, start: i, end: j + n, rule: ruleSendGrid, swallow: b64url}
	case more:
		return hit{status: ranOut(atEOF), start: i}
	}
	return hit{start: i}
}

// basicAt: the credentials of an Authorization header's "Basic " (any case): base64 of
// user:password. Without the header's name before it, "Basic …" is left: documentation
// quotes examples so.
func basicAt(w []byte, i int, atEOF bool) hit {
	j := skipSpacesBack(w, i-1, 3)
	if j < 4 || j == i-1 || !asciiEqualFold(w[j-4:j+1], "basic") || (j >= 5 && identChars[w[j-5]]) {
		return hit{start: i}
	}
	h := j - 5
	for k := 0; k < 4 && h >= 0 && bytes.IndexByte([]byte(" \t:=\"'"), w[h]) >= 0; k++ {
		h--
	}
	const header = "authorization"
	if h < len(header)-1 || !asciiEqualFold(w[h-len(header)+1:h+1], header) {
		return hit{start: i}
	}
	return basicCredentialsAt(w, i, atEOF)
}

// authorizationValueAt judges the whole value of an Authorization member at i: "Basic "
// (any case) and credentials.
func authorizationValueAt(w []byte, i int, atEOF bool) hit {
	for k := 0; k < len("basic"); k++ {
		if i+k >= len(w) {
			return hit{status: ranOut(atEOF), start: i}
		}
		if w[i+k]|0x20 != "basic"[k] {
			return hit{start: i}
		}
	}
	j := i + len("basic")
	n, more := runAt(w, j, blanks, 3, atEOF)
	if more {
		return hit{status: ranOut(atEOF), start: i}
	}
	if n == 0 {
		return hit{start: i}
	}
	h := basicCredentialsAt(w, j+n, atEOF)
	if h.status == needMore {
		h.start = i
	}
	return h
}

// basicCredentialsAt: base64 of user:password at i, ending there.
func basicCredentialsAt(w []byte, i int, atEOF bool) hit {
	n, more := runAt(w, i, base64Chars, maxHold, atEOF)
	if more {
		return hit{status: ranOut(atEOF), start: i}
	}
	if n < 8 || n == maxHold {
		return hit{start: i}
	}
	dec, err := base64.RawStdEncoding.DecodeString(string(bytes.TrimRight(w[i:i+n], "=")))
	colon := bytes.IndexByte(dec, ':')
	if err != nil || colon < 0 || colon == len(dec)-1 {
		return hit{start: i}
	}
	for _, c := range dec {
		if c < ' ' || c > '~' {
			return hit{start: i}
		}
	}
	return hit{status: match, start: i, end: i + n, rule: ruleBasicAuth}
}

// bearerAt: a token after "Bearer " (any case), at least 16 bytes with a digit.
func bearerAt(w []byte, i int, atEOF bool) hit {
	j := skipSpacesBack(w, i-1, 3)
	if j < 5 || j == i-1 {
		return hit{start: i}
	}
	word := w[j-5 : j+1]
	if !asciiEqualFold(word, "bearer") || (j >= 6 && identChars[w[j-6]]) {
		return hit{start: i}
	}
	digits := false
	for k := i; k < len(w) && k-i < maxHold; k++ {
		c := w[k]
		if !bearerChars[c] {
			return hit{start: i}
		}
		digits = digits || c >= '0' && c <= '9'
		if digits && k+1-i >= 16 {
			return hit{status: match, start: i, end: k + 1, rule: ruleBearer, swallow: bearerChars}
		}
	}
	if len(w)-i < maxHold {
		return hit{status: ranOut(atEOF), start: i}
	}
	return hit{start: i}
}

func asciiEqualFold(b []byte, lower string) bool {
	if len(b) != len(lower) {
		return false
	}
	for k := range b {
		c := b[k]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[k] {
			return false
		}
	}
	return true
}

// urlPasswordAt: the password of scheme://user:password@host, at i just after the colon.
func urlPasswordAt(w []byte, i int, atEOF bool) hit {
	j := i - 2
	user := 0
	for j >= 0 && userChars[w[j]] && user < 64 {
		j--
		user++
	}
	if j < 2 || w[j] != '/' || w[j-1] != '/' || w[j-2] != ':' {
		return hit{start: i}
	}
	j -= 3
	end := j + 1
	for j >= 0 && schemeChars[w[j]] && end-j <= 21 {
		j--
	}
	start := j + 1
	if end-start < 2 || !alnum[w[start]] || w[start] >= '0' && w[start] <= '9' || (j >= 0 && alnum[w[j]]) {
		return hit{start: i}
	}
	n, more := runAt(w, i, passChars, maxValue, atEOF)
	if more {
		return hit{status: ranOut(atEOF), start: i}
	}
	// The password ends at the last '@' of the authority: ':' and '@' may not both be
	// in it, so the run stops at the first byte outside passChars, which must be '@'.
	if i+n >= len(w) {
		return hit{status: ranOut(atEOF), start: i}
	}
	if w[i+n] != '@' || n == 0 || placeholderPasswords[string(bytes.ToLower(w[i:i+n]))] {
		return hit{start: i}
	}
	return hit{status: match, start: i, end: i + n, rule: ruleURLPassword}
}

// placeholderPasswords are what examples and documentation put in URLs; they are not
// secrets, and leaving them keeps example configuration readable.
var placeholderPasswords = map[string]bool{
	"password": true, "pass": true, "passwd": true, "pwd": true, "secret": true,
	"changeme": true, "change-me": true, "example": true, "xxx": true, "xxxx": true,
	"xxxxxx": true, "xxxxxxxx": true, "mypassword": true, "yourpassword": true,
}
