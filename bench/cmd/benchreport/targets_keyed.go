package main

var keyedTargets = []target{}
