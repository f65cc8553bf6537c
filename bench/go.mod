module sluice/bench

go 1.26.0

require (
	github.com/alitto/pond/v2 v2.7.1
	github.com/panjf2000/ants/v2 v2.12.1
	github.com/sourcegraph/conc v0.3.0
	go.uber.org/goleak v1.3.0
	golang.org/x/sync v0.24.0
	sluice/core v0.0.0-00010101000000-000000000000
	sluice/metrics/prom v0.0.0-00010101000000-000000000000
)

require (
	github.com/beorn7/perks v1.0.1 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	github.com/prometheus/client_golang v1.25.0 // indirect
	github.com/prometheus/client_model v0.6.3 // indirect
	github.com/prometheus/common v0.72.0 // indirect
	github.com/prometheus/procfs v0.22.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
	sluice/metrics/internal v0.0.0-00010101000000-000000000000 // indirect
)

require (
	github.com/rabbitmq/amqp091-go v1.16.0
	go.uber.org/atomic v1.7.0 // indirect
	go.uber.org/multierr v1.9.0 // indirect
	sluice/rabbitmq v0.0.0-00010101000000-000000000000
)

replace sluice/core => ../core

replace sluice/rabbitmq => ../rabbitmq

replace sluice/metrics/prom => ../metrics/prom

replace sluice/metrics/internal => ../metrics/internal
