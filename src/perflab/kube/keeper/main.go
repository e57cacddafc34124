// Command keeper holds the load driver's pod open until it is deleted: the lab runs oha in the
// pod by exec, one load point after another, and the image has no shell or sleep of its own.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	<-stop
}
