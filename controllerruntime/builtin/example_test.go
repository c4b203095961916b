package builtin_test

import (
	"fmt"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/builtin"
	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/model"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
)

// The built-in controllers are declared like any other, through
// Manager.Setup, so that every fault reaches them.
func Example() {
	conv, err := convert.New(clientgoscheme.Scheme, convert.Options{})
	if err != nil {
		panic(err)
	}
	c := model.NewCluster(model.Config{})
	mgr, err := crt.NewManager(c, conv, crt.ManagerOptions{})
	if err != nil {
		panic(err)
	}

	err = mgr.Setup(builtin.Kubelet(mgr, builtin.KubeletOptions{}), crt.SetupOptions{})
	if err != nil {
		panic(err)
	}
	err = mgr.Setup(builtin.Jobs(mgr), crt.SetupOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Println(c.Controllers())
	// Output:
	// [job kubelet]
}
