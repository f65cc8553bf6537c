module sluice/bench

go 1.26.0

require (
	github.com/alitto/pond/v2 v2.7.1
	github.com/panjf2000/ants/v2 v2.12.1
	github.com/sourcegraph/conc v0.3.0
	go.uber.org/goleak v1.3.0
	golang.org/x/sync v0.24.0
	sluice/core v0.0.0-00010101000000-000000000000
)

require (
	github.com/rabbitmq/amqp091-go v1.16.0
	go.uber.org/atomic v1.7.0 // indirect
	go.uber.org/multierr v1.9.0 // indirect
	sluice/rabbitmq v0.0.0-00010101000000-000000000000
)

replace sluice/core => ../core

replace sluice/rabbitmq => ../rabbitmq
