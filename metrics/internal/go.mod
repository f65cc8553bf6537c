module sluice/metrics/internal

go 1.26.0

require (
	go.uber.org/goleak v1.3.0
	sluice/core v0.0.0-00010101000000-000000000000
)

replace sluice/core => ../../core
