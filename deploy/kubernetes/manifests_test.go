// Package kubernetes holds the census manifests; its test decodes them
// strictly into the Kubernetes API types.
package kubernetes

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpvet/mcpvet/internal/testenv"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// strict decodes one YAML document into v, refusing unknown fields.
func strict(t *testing.T, name string, data []byte, v any) {
	t.Helper()
	if err := yaml.UnmarshalStrict(data, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// kustomization is the part of a kustomization.yaml these manifests use.
type kustomization struct {
	APIVersion   string   `json:"apiVersion"`
	Kind         string   `json:"kind"`
	Resources    []string `json:"resources"`
	Replacements []struct {
		Source struct {
			Kind      string `json:"kind"`
			Name      string `json:"name"`
			FieldPath string `json:"fieldPath"`
		} `json:"source"`
		Targets []struct {
			Select struct {
				Kind string `json:"kind"`
				Name string `json:"name"`
			} `json:"select"`
			FieldPaths []string `json:"fieldPaths"`
			Options    struct {
				Create bool `json:"create"`
			} `json:"options"`
		} `json:"targets"`
	} `json:"replacements"`
}

func checkPod(t *testing.T, name string, spec corev1.PodSpec) {
	t.Helper()
	for _, c := range append(append([]corev1.Container(nil), spec.InitContainers...), spec.Containers...) {
		if c.ImagePullPolicy != corev1.PullIfNotPresent {
			t.Errorf("%s: container %s: imagePullPolicy %q, want IfNotPresent", name, c.Name, c.ImagePullPolicy)
		}
	}
	for _, v := range spec.Volumes {
		if v.ConfigMap != nil {
			t.Errorf("%s: volume %s is a ConfigMap (1 MiB limit; the snapshot is larger)", name, v.Name)
		}
	}
}

func TestCensusManifests(t *testing.T) {
	var k kustomization
	strict(t, "kustomization.yaml", readFile(t, "kustomization.yaml"), &k)
	for _, r := range k.Resources {
		if strings.Contains(r, "merge") {
			t.Errorf("kustomization applies %s with the shards; the merge must be applied after they complete", r)
		}
	}

	var pvc corev1.PersistentVolumeClaim
	strict(t, "results-pvc.yaml", readFile(t, "results-pvc.yaml"), &pvc)

	var job batchv1.Job
	strict(t, "census-job.yaml", readFile(t, "census-job.yaml"), &job)
	if job.Spec.CompletionMode == nil || *job.Spec.CompletionMode != batchv1.IndexedCompletion || job.Spec.Completions == nil {
		t.Fatal("census Job is not an Indexed Job with completions")
	}
	checkPod(t, "census-job.yaml", job.Spec.Template.Spec)
	pull := false
	for _, c := range job.Spec.Template.Spec.InitContainers {
		pull = pull || strings.Contains(strings.Join(append(c.Command, c.Args...), " "), "mcpvet registry pull")
	}
	if !pull {
		t.Error("no init container runs mcpvet registry pull")
	}
	scan := job.Spec.Template.Spec.Containers[0]
	args := strings.Join(scan.Args, " ")
	if !strings.Contains(args, `--shard "${JOB_COMPLETION_INDEX}/${SHARDS}"`) {
		t.Errorf("scan container does not take the shard count from SHARDS: %s", args)
	}
	// The count is copied from completions to parallelism and SHARDS.
	var targets []string
	for _, r := range k.Replacements {
		if r.Source.Kind == "Job" && r.Source.Name == job.Name && r.Source.FieldPath == "spec.completions" {
			for _, tg := range r.Targets {
				targets = append(targets, tg.FieldPaths...)
			}
		}
	}
	for _, want := range []string{"spec.parallelism", "spec.template.spec.containers.[name=scan].env.[name=SHARDS].value"} {
		if !contains(targets, want) {
			t.Errorf("kustomization does not copy spec.completions to %s", want)
		}
	}

	var merge batchv1.Job
	strict(t, "merge/merge-job.yaml", readFile(t, filepath.Join("merge", "merge-job.yaml")), &merge)
	checkPod(t, "merge/merge-job.yaml", merge.Spec.Template.Spec)
	if !strings.Contains(strings.Join(merge.Spec.Template.Spec.Containers[0].Args, " "), "mcpvet results merge") {
		t.Error("the merge Job does not run mcpvet results merge")
	}

	ignore := string(readFile(t, filepath.Join("..", "..", ".dockerignore")))
	if !strings.Contains(ignore, ".cache/") {
		t.Error(".dockerignore does not leave out .cache/")
	}
}

// TestCensusManifestsRendered renders the kustomization with kubectl (when
// installed) after changing the shard count in its one place, and decodes
// the output strictly.
func TestCensusManifestsRendered(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		testenv.Need(t, "kubectl is not installed")
	}
	dir := t.TempDir()
	for _, f := range []string{"kustomization.yaml", "results-pvc.yaml", "census-job.yaml"} {
		data := readFile(t, f)
		if f == "census-job.yaml" {
			data = bytes.Replace(data, []byte("completions: 8"), []byte("completions: 5"), 1)
		}
		os.WriteFile(filepath.Join(dir, f), data, 0o644)
	}
	out, err := exec.Command(kubectl, "kustomize", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl kustomize: %v\n%s", err, out)
	}
	var job *batchv1.Job
	for doc := range strings.SplitSeq(string(out), "\n---\n") {
		var meta struct{ Kind string }
		yaml.Unmarshal([]byte(doc), &meta)
		switch meta.Kind {
		case "Job":
			job = &batchv1.Job{}
			strict(t, "rendered Job", []byte(doc), job)
		case "PersistentVolumeClaim":
			strict(t, "rendered PVC", []byte(doc), &corev1.PersistentVolumeClaim{})
		default:
			t.Errorf("unexpected rendered kind %q", meta.Kind)
		}
	}
	if job == nil {
		t.Fatal("no Job rendered")
	}
	if *job.Spec.Completions != 5 || job.Spec.Parallelism == nil || *job.Spec.Parallelism != 5 {
		t.Errorf("completions %d, parallelism %v; want both 5", *job.Spec.Completions, job.Spec.Parallelism)
	}
	for _, e := range job.Spec.Template.Spec.Containers[0].Env {
		if e.Name == "SHARDS" && e.Value != "5" {
			t.Errorf("SHARDS = %q, want 5", e.Value)
		}
	}
}

func contains(list []string, s string) bool {
	return slices.Contains(list, s)
}
