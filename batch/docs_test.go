package batch_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The GitHub Actions workflow and the Kubernetes Job of docs/batch.md parse, and their
// shards cover 0..N-1 of the N they name.
func TestDocExamplesParse(t *testing.T) {
	page, err := os.ReadFile("../docs/batch.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllSubmatch(page, -1)
	if len(blocks) != 2 {
		t.Fatalf("docs/batch.md has %d yaml blocks, want the workflow and the Job", len(blocks))
	}
	var workflow struct {
		Jobs map[string]struct {
			Needs    any
			Strategy struct{ Matrix struct{ Shard []int } }
			Steps    []struct {
				Uses, Run string
				With      map[string]string
			}
		}
	}
	if err := yaml.Unmarshal(blocks[0][1], &workflow); err != nil {
		t.Fatalf("workflow: %v", err)
	}
	shard, merge := workflow.Jobs["shard"], workflow.Jobs["merge"]
	if got := shard.Strategy.Matrix.Shard; len(got) != 4 || got[0] != 0 || got[3] != 3 {
		t.Errorf("matrix shards %v, want 0..3", got)
	}
	steps := func(job string, s []struct {
		Uses, Run string
		With      map[string]string
	}) string {
		var all strings.Builder
		for _, st := range s {
			all.WriteString(st.Uses + " " + st.Run + "\n")
		}
		return all.String()
	}
	if s := steps("shard", shard.Steps); !strings.Contains(s, "--shard ${{ matrix.shard }}/4") || !strings.Contains(s, "upload-artifact") {
		t.Errorf("the shard job does not run its shard of 4 and upload it:\n%s", s)
	}
	if s := steps("merge", merge.Steps); merge.Needs != "shard" || !strings.Contains(s, "download-artifact") || !strings.Contains(s, "batch merge") {
		t.Errorf("the merge job does not follow the shards, download and merge:\n%s", s)
	}

	var job struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string
		Spec       struct {
			CompletionMode string `yaml:"completionMode"`
			Completions    int
			Template       struct {
				Spec struct {
					Containers []struct{ Args []string }
				}
			}
		}
	}
	if err := yaml.Unmarshal(blocks[1][1], &job); err != nil {
		t.Fatalf("job: %v", err)
	}
	if job.APIVersion != "batch/v1" || job.Kind != "Job" || job.Spec.CompletionMode != "Indexed" {
		t.Errorf("not an Indexed Job: %+v", job)
	}
	cs := job.Spec.Template.Spec.Containers
	if len(cs) != 1 || len(cs[0].Args) != 1 || !strings.Contains(cs[0].Args[0], "--shard $JOB_COMPLETION_INDEX/4") || job.Spec.Completions != 4 {
		t.Errorf("the pods do not take shard $JOB_COMPLETION_INDEX of the 4 completions: %+v", job.Spec)
	}
}
