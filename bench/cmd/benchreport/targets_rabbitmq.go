package main

// rabbitTargets are the RabbitMQ consumer's speed targets.
var rabbitTargets = []target{
	{
		what:  "RabbitMQ: two consumers sharing a limit of 8 (prefetch 8 each): ≥ 0.95x the hand-written amqp091-go loop's throughput",
		bench: "RabbitMQ/Consume/sluice",
		peers: []string{"RabbitMQ/Consume/handwritten"},
		unit:  "ns/op",
		max:   1 / 0.95,
	},
}
