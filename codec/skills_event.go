package codec

import (
	"sync"
	"unsafe"
)

// The events of skills (package skills, docs/skills.md).
const (
	TypeSkillsLoaded   = "skills_loaded"
	TypeSkillActivated = "skill_activated"
)

// SkillsLoaded follows the header of a run that found skills: the ones loaded (listed to the
// model), the ones refused and why.
type SkillsLoaded struct {
	Skills   []*SkillEntry   `json:"skills" doc:"the skills loaded, nearest first"`
	Refused  []*SkillRefusal `json:"refused" doc:"the SKILL.md files that break the format: not loaded"`
	Disabled []string        `json:"disabled" doc:"names the settings or flags leave out"`
	Unlisted []string        `json:"unlisted" doc:"names loaded but left out of the system prompt's list, which is capped"`
	Required []string        `json:"required" doc:"the names --require-skill gives: the run exits 4 unless the model activates each"`
}

// SkillEntry is a loaded skill.
type SkillEntry struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Path        string `json:"path" doc:"the SKILL.md, absolute"`
}

// SkillRefusal is a SKILL.md that was not loaded.
type SkillRefusal struct {
	Path     string   `json:"path"`
	Problems []string `json:"problems"`
}

// SkillActivated: the model read a skill's SKILL.md (the read tool succeeded on it).
type SkillActivated struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

func (*SkillsLoaded) EventType() string   { return TypeSkillsLoaded }
func (*SkillActivated) EventType() string { return TypeSkillActivated }

var (
	skillsLoadedPlan   = sync.OnceValue(planFor[SkillsLoaded])
	skillActivatedPlan = sync.OnceValue(planFor[SkillActivated])
)

func (v *SkillsLoaded) AppendJSON(dst []byte) []byte {
	return skillsLoadedPlan().encode(dst, unsafe.Pointer(v))
}

func (v *SkillActivated) AppendJSON(dst []byte) []byte {
	return skillActivatedPlan().encode(dst, unsafe.Pointer(v))
}
