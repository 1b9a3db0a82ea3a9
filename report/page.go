package report

import (
	"crypto/sha256"
	"encoding/base64"
	"html"
)

// style is the page's one style sheet. The summary is written after the transcript (it
// needs the whole stream) and shown first by the flex order, so the page streams and reads
// right without JavaScript.
const style = `
body{display:flex;flex-direction:column;margin:0 auto;max-width:1100px;padding:1em 1.5em;font:15px/1.45 system-ui,sans-serif;color:#1d232a;background:#fff}
#summary{order:-2;border-bottom:2px solid #d0d7de;margin-bottom:1em;padding-bottom:1em}
#tools-bar{order:-1}
h1{font-size:1.5em;margin:.2em 0}h2{font-size:1.15em;margin:1.2em 0 .4em}h3{font-size:1em;margin:0 0 .3em}
.verdict{display:inline-block;font-weight:600;padding:.2em .7em;border-radius:4px;color:#fff;background:#57606a}
.verdict.completed{background:#1a7f37}.verdict.failed,.verdict.gate,.verdict.limit{background:#cf222e}
.verdict.interrupted,.verdict.terminated,.verdict.hangup{background:#9a6700}
dl.facts{display:grid;grid-template-columns:max-content auto;gap:.15em 1em;margin:.6em 0}dl.facts dt{color:#57606a}dl.facts dd{margin:0}
table{border-collapse:collapse}td,th{border:1px solid #d0d7de;padding:.2em .6em;text-align:left}th{background:#f6f8fa}
th.sortable{cursor:pointer}
article{border:1px solid #d0d7de;border-radius:6px;margin:.6em 0;padding:.6em .8em}
article.user{background:#f6f8fa}article.assistant{background:#fff}
.meta{color:#57606a;font-size:.85em}
pre{white-space:pre-wrap;word-break:break-word;background:#f6f8fa;padding:.5em;border-radius:4px;margin:.3em 0;font:13px/1.4 ui-monospace,monospace}
.toolcall{border-left:3px solid #0969da;padding-left:.6em;margin:.5em 0}
.result{border-left:3px solid #8c959f;padding-left:.6em;margin:.3em 0}.result.error{border-left-color:#cf222e}
.error-text{color:#cf222e}
.cut{color:#9a6700;font-style:italic}
.mark{margin:.5em 0;padding:.3em .6em;border-radius:4px;background:#fff8c5;font-size:.9em}
.mark.retry{background:#ffebe9}
.run-start{border-top:3px solid #0969da;margin-top:1em}
del,.diff-del{background:#ffebe9;display:block;text-decoration:none}ins,.diff-add{background:#dafbe1;display:block;text-decoration:none}
img.embedded{max-width:100%;border:1px solid #d0d7de}
svg{max-width:100%;height:auto;font:11px sans-serif}
.hidden{display:none}
`

// script adds what the page works without: a search over the transcript and folding all
// details at once. It runs under the page's policy, which allows it by hash.
const script = `(function(){
var bar=document.getElementById('tools-bar');bar.classList.remove('hidden');
var q=document.getElementById('search'),items=document.querySelectorAll('#transcript > *');
q.addEventListener('input',function(){var s=q.value.toLowerCase();
items.forEach(function(e){e.classList.toggle('hidden',s!==''&&e.textContent.toLowerCase().indexOf(s)<0)});});
function fold(open){document.querySelectorAll('#transcript details').forEach(function(d){d.open=open})}
document.getElementById('expand').addEventListener('click',function(){fold(true)});
document.getElementById('collapse').addEventListener('click',function(){fold(false)});
document.querySelectorAll('th.sortable').forEach(function(th){th.addEventListener('click',function(){
var table=th.closest('table'),body=table.tBodies[0],i=th.cellIndex,asc=th.dataset.asc!=='1';th.dataset.asc=asc?'1':'0';
var rows=Array.prototype.slice.call(body.rows);rows.sort(function(a,b){var x=a.cells[i].dataset.v||a.cells[i].textContent,y=b.cells[i].dataset.v||b.cells[i].textContent;
var nx=parseFloat(x),ny=parseFloat(y),c=(!isNaN(nx)&&!isNaN(ny))?nx-ny:x.localeCompare(y);return asc?c:-c});
rows.forEach(function(r){body.appendChild(r)})})});
})();`

func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// policy lets the page load nothing: its own style and script by hash, images only from
// data: URLs, no form, no frame, no base.
var policy = "default-src 'none'; style-src " + hash(style) + "; script-src " + hash(script) +
	"; img-src data:; base-uri 'none'; form-action 'none'"

// pageHead is the start of the page; titleMark stands for the title (escaped). It is no
// format: the style sheet holds percent signs.
var pageHead = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="` + html.EscapeString(policy) + `">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="base-context filter html">
<title>` + titleMark + `</title>
<style>` + style + `</style>
</head>
<body>
<div id="tools-bar" class="hidden"><input id="search" type="search" placeholder="Search the transcript"> <button id="expand" type="button">Expand all</button> <button id="collapse" type="button">Collapse all</button></div>
<main id="transcript" aria-label="transcript">
`

const titleMark = "\x00title\x00"

var scriptTag = "<script>" + script + "</script>\n"

// esc escapes a string from the stream for text and attribute values.
func esc(s string) string { return html.EscapeString(s) }
