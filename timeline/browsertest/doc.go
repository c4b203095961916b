// Package browsertest checks timeline pages in a real headless Chromium,
// driven by chromedp. It is its own module so that the core module does not
// depend on chromedp.
//
// The tests look for a Chromium binary ($CONVERGE_CHROME, else chromium,
// chromium-browser, google-chrome on $PATH) and skip with a message when
// there is none, unless $CONVERGE_REQUIRE_BROWSER is set, as .ci/run does
// after scripts/install-chromium.sh. `go test -update-screenshots` rewrites
// the screenshots in the repository's docs/.
package browsertest
