package main

var queueTargets = []target{}
