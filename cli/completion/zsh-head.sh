#compdef roofprof
