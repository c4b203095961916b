module github.com/converge-sim/converge

go 1.26

require (
	github.com/stretchr/testify v1.12.1
	go.uber.org/zap v1.28.0
	pgregory.net/rapid v1.3.0
)

require (
	go.uber.org/multierr v1.10.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)
