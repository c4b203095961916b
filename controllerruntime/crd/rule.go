package crd

import (
	"fmt"
	"strings"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// node returns the schema of the field at path ("status.active",
// "spec.items[2].name", "spec.labels[app]"), or nil.
func (v *Version) node(path string) *structuralschema.Structural {
	s := v.structural
	for _, seg := range strings.Split(path, ".") {
		name, rest, _ := strings.Cut(seg, "[")
		if name != "" {
			p, ok := s.Properties[name]
			if !ok {
				return nil
			}
			s = &p
		}
		for ; rest != ""; _, rest, _ = strings.Cut(rest, "[") {
			switch {
			case s.Items != nil:
				s = s.Items
			case s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil:
				s = s.AdditionalProperties.Structural
			default:
				return nil
			}
		}
	}
	return s
}

// rule names the schema rule a field error reports: the CEL rule whose
// message (or "failed rule: …") it carries, or the schema keyword with
// its value. It returns "" when it cannot tell.
func (v *Version) rule(e *field.Error) string {
	s := v.node(e.Field)
	if s == nil {
		return ""
	}
	for _, x := range s.XValidations {
		if e.Detail == x.Message || strings.Contains(e.Detail, "failed rule: "+x.Rule) {
			return x.Rule
		}
	}
	vv := s.ValueValidation
	if vv == nil {
		return ""
	}
	switch {
	case e.Type == field.ErrorTypeTooMany && vv.MaxItems != nil:
		return fmt.Sprintf("maxItems: %d", *vv.MaxItems)
	case e.Type == field.ErrorTypeTooMany && vv.MaxProperties != nil:
		return fmt.Sprintf("maxProperties: %d", *vv.MaxProperties)
	case e.Type == field.ErrorTypeTooLong && vv.MaxLength != nil:
		return fmt.Sprintf("maxLength: %d", *vv.MaxLength)
	case e.Type == field.ErrorTypeNotSupported && len(vv.Enum) > 0:
		return "enum"
	case strings.Contains(e.Detail, "less than or equal to") && vv.Maximum != nil:
		return fmt.Sprintf("maximum: %v", *vv.Maximum)
	case strings.Contains(e.Detail, "greater than or equal to") && vv.Minimum != nil:
		return fmt.Sprintf("minimum: %v", *vv.Minimum)
	case strings.Contains(e.Detail, "should match") && vv.Pattern != "":
		return "pattern: " + vv.Pattern
	case strings.Contains(e.Detail, "chars long") && vv.MinLength != nil:
		return fmt.Sprintf("minLength: %d", *vv.MinLength)
	}
	return ""
}
