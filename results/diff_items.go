package results

import (
	"encoding/json"

	"github.com/mcpvet/mcpvet/probe"
)

// Change kinds of item definitions other than tool schemas and
// annotations (which have their own kinds), compared by [ItemDigests]:
// a rug pull shows up as one of these.
const (
	// DiffDescriptionChanged and DiffTitleChanged: a tool's description
	// or title changed; Old and New carry both texts.
	DiffDescriptionChanged = "description_changed"
	DiffTitleChanged       = "title_changed"
	// DiffPromptAdded, DiffPromptRemoved, DiffPromptChanged: prompts by
	// name; a change lists the changed fields.
	DiffPromptAdded   = "prompt_added"
	DiffPromptRemoved = "prompt_removed"
	DiffPromptChanged = "prompt_changed"
	// DiffResourceAdded, DiffResourceRemoved, DiffResourceChanged:
	// resources by URI.
	DiffResourceAdded   = "resource_added"
	DiffResourceRemoved = "resource_removed"
	DiffResourceChanged = "resource_changed"
	// DiffTemplateAdded, DiffTemplateRemoved, DiffTemplateChanged:
	// resource templates by URI template.
	DiffTemplateAdded   = "template_added"
	DiffTemplateRemoved = "template_removed"
	DiffTemplateChanged = "template_changed"
	// DiffInstructionsChanged: the server instructions changed.
	DiffInstructionsChanged = "instructions_changed"
)

// diffItems compares item definitions by digest: tool descriptions and
// titles, and prompts, resources, templates and instructions whole.
func diffItems(a, b *probe.Result) []DiffChange {
	old := map[string]ItemDigest{}
	for _, d := range ItemDigests(a) {
		old[d.Kind+"\x00"+d.Key] = d
	}
	kinds := map[string][3]string{
		ItemPrompt:   {DiffPromptAdded, DiffPromptRemoved, DiffPromptChanged},
		ItemResource: {DiffResourceAdded, DiffResourceRemoved, DiffResourceChanged},
		ItemTemplate: {DiffTemplateAdded, DiffTemplateRemoved, DiffTemplateChanged},
	}
	var out []DiffChange
	seen := map[string]bool{}
	for _, d := range ItemDigests(b) {
		k := d.Kind + "\x00" + d.Key
		seen[k] = true
		o, had := old[k]
		switch {
		case d.Kind == ItemTool:
			// Added, removed, schemas and annotations: diffTools.
			if !had || o.Digest == d.Digest {
				continue
			}
			for _, f := range []struct{ field, kind string }{{"description", DiffDescriptionChanged}, {"title", DiffTitleChanged}} {
				if o.Fields[f.field] != d.Fields[f.field] {
					out = append(out, DiffChange{Kind: f.kind, Subject: d.Key,
						Old: diffShort(jsonText(o.Fields[f.field])), New: diffShort(jsonText(d.Fields[f.field]))})
				}
			}
		case d.Kind == ItemInstructions:
			if had && o.Digest != d.Digest {
				out = append(out, DiffChange{Kind: DiffInstructionsChanged, Subject: "server",
					Old: diffShort(jsonText(o.Fields["instructions"])), New: diffShort(jsonText(d.Fields["instructions"]))})
			} else if !had && a.Liveness.InstructionsBytes == 0 {
				// (A run stored before instructions were kept has their
				// size but not their text; that is not a change.)
				out = append(out, DiffChange{Kind: DiffInstructionsChanged, Subject: "server",
					New: diffShort(jsonText(d.Fields["instructions"]))})
			}
		default:
			ks := kinds[d.Kind]
			switch {
			case !had:
				out = append(out, DiffChange{Kind: ks[0], Subject: d.Key})
			case o.Digest != d.Digest:
				out = append(out, diffItemFields(ks[2], d.Key, o, d))
			}
		}
	}
	for _, o := range ItemDigests(a) {
		k := o.Kind + "\x00" + o.Key
		if seen[k] {
			continue
		}
		seen[k] = true
		switch o.Kind {
		case ItemTool:
		case ItemInstructions:
			if b.Liveness.InstructionsBytes == 0 {
				out = append(out, DiffChange{Kind: DiffInstructionsChanged, Subject: "server", Old: diffShort(jsonText(o.Fields["instructions"]))})
			}
		default:
			out = append(out, DiffChange{Kind: kinds[o.Kind][1], Subject: o.Key})
		}
	}
	return out
}

// diffItemFields lists the changed fields of an item as pointers.
func diffItemFields(kind, key string, o, d ItemDigest) DiffChange {
	c := DiffChange{Kind: kind, Subject: key}
	names := map[string]bool{}
	for f := range o.Fields {
		names[f] = true
	}
	for f := range d.Fields {
		names[f] = true
	}
	for _, f := range digestFields[kindOfChange(kind)] {
		if !names[f] || o.Fields[f] == d.Fields[f] {
			continue
		}
		fields, more, _ := diffRawJSON(json.RawMessage(o.Fields[f]), json.RawMessage(d.Fields[f]))
		for _, x := range fields {
			x.Pointer = "/" + f + x.Pointer
			if len(c.Fields) < diffMaxFields {
				c.Fields = append(c.Fields, x)
			} else {
				c.MoreFields++
			}
		}
		c.MoreFields += more
	}
	return c
}

func kindOfChange(kind string) string {
	switch kind {
	case DiffPromptChanged:
		return ItemPrompt
	case DiffResourceChanged:
		return ItemResource
	}
	return ItemTemplate
}

// jsonText is the string a canonical JSON string holds, or the JSON.
func jsonText(canonical string) string {
	var s string
	if json.Unmarshal([]byte(canonical), &s) == nil {
		return s
	}
	return canonical
}
