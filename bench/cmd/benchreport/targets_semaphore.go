package main

var semaphoreTargets = []target{}
