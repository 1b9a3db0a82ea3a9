package provider

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/basecontext/base-context/codec"
)

// List writes the models of the registry to w, with whether their provider's key is there
// (getenv reads the environment): a table, or with asJSON one JSON object per model and line.
func (r *Registry) List(w io.Writer, getenv func(string) string, asJSON bool) error {
	ready := map[string]bool{}
	for _, p := range r.Providers {
		_, err := p.Key(getenv)
		ready[p.Name] = err == nil
	}
	if asJSON {
		lw := codec.NewLineWriter(w)
		for _, m := range r.Models() {
			if err := lw.WriteLine(modelJSON(m, ready[m.Provider])); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "MODEL\tAPI\tCONTEXT\tMAX OUT\tREASONING\t$/M IN\t$/M OUT\tKEY")
	for _, m := range r.Models() {
		key := "ok"
		if !ready[m.Provider] {
			key = "missing"
		}
		fmt.Fprintf(tw, "%s/%s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\n", m.Provider, m.ID, m.API, m.ContextWindow, m.MaxTokens,
			yesNo(m.Reasoning), price(m.Cost.Input), price(m.Cost.Output), key)
	}
	fmt.Fprintln(tw, "script/<name>\tscript\t200000\t32000\tno\t0\t0\tnone needed (offline, --script FILE)")
	return tw.Flush()
}

func modelJSON(m Model, ready bool) []byte {
	b := append([]byte(nil), `{"provider":`...)
	b = codec.AppendString(b, m.Provider)
	b = append(b, `,"id":`...)
	b = codec.AppendString(b, m.ID)
	b = append(b, `,"name":`...)
	b = codec.AppendString(b, m.Name)
	b = append(b, `,"api":`...)
	b = codec.AppendString(b, m.API)
	b = append(b, `,"contextWindow":`...)
	b = strconv.AppendInt(b, m.ContextWindow, 10)
	b = append(b, `,"maxTokens":`...)
	b = strconv.AppendInt(b, m.MaxTokens, 10)
	b = append(b, `,"reasoning":`...)
	b = strconv.AppendBool(b, m.Reasoning)
	b = append(b, `,"cost":{"input":`...)
	b = codec.AppendFloat(b, m.Cost.Input)
	b = append(b, `,"output":`...)
	b = codec.AppendFloat(b, m.Cost.Output)
	b = append(b, `,"cacheRead":`...)
	b = codec.AppendFloat(b, m.Cost.CacheRead)
	b = append(b, `,"cacheWrite":`...)
	b = codec.AppendFloat(b, m.Cost.CacheWrite)
	b = append(b, `},"keyAvailable":`...)
	b = strconv.AppendBool(b, ready)
	return append(b, '}')
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func price(p float64) string { return strconv.FormatFloat(p, 'f', -1, 64) }
