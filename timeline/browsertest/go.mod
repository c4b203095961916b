module github.com/converge-sim/converge/timeline/browsertest

go 1.26.0

require (
	github.com/chromedp/chromedp v0.23.0
	github.com/converge-sim/converge v0.0.0
	github.com/stretchr/testify v1.12.1
)

require (
	github.com/chromedp/cdproto v0.159.0 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	go.uber.org/multierr v1.10.0 // indirect
	go.uber.org/zap v1.28.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	pgregory.net/rapid v1.3.0 // indirect
)

replace github.com/converge-sim/converge => ../..
