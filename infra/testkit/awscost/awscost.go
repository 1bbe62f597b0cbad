// Package awscost prices measured usage at AWS's public on-demand list prices in
// us-east-1 (November 2026), for the benchmarks' cost figures (docs/benchmarks.md,
// "Cost"). Free tiers are left out.
package awscost

import (
	"fmt"
	"strings"
)

// Prices in US dollars.
const (
	DynamoDBPerMillionWRU = 0.625 // on-demand write request units
	DynamoDBPerMillionRRU = 0.125 // on-demand read request units
	LambdaPerGBSecondARM  = 0.0000133334
	LambdaPerMillion      = 0.20 // invocations
	HTTPAPIPerMillion     = 1.00 // API Gateway HTTP API, first 300 million a month
	SQSFIFOPerMillion     = 0.50 // FIFO requests (each 64 KB of payload is one)
	S3PutPerThousand      = 0.005
	S3GetPerThousand      = 0.0004
)

// Usage is what some work used.
type Usage struct {
	WRU, RRU          float64 // DynamoDB request units
	LambdaGBSeconds   float64 // billed duration × memory
	LambdaInvocations float64
	HTTPRequests      float64 // API Gateway
	SQSRequests       float64
	S3Puts, S3Gets    float64
}

// Scale multiplies every figure by f (usage per unit × a million units).
func (u Usage) Scale(f float64) Usage {
	return Usage{WRU: u.WRU * f, RRU: u.RRU * f, LambdaGBSeconds: u.LambdaGBSeconds * f, LambdaInvocations: u.LambdaInvocations * f,
		HTTPRequests: u.HTTPRequests * f, SQSRequests: u.SQSRequests * f, S3Puts: u.S3Puts * f, S3Gets: u.S3Gets * f}
}

// Line is one priced service.
type Line struct {
	Service string
	Dollars float64
}

// Lines prices the usage per service.
func (u Usage) Lines() []Line {
	return []Line{
		{"DynamoDB writes", u.WRU / 1e6 * DynamoDBPerMillionWRU},
		{"DynamoDB reads", u.RRU / 1e6 * DynamoDBPerMillionRRU},
		{"Lambda duration", u.LambdaGBSeconds * LambdaPerGBSecondARM},
		{"Lambda invocations", u.LambdaInvocations / 1e6 * LambdaPerMillion},
		{"API Gateway", u.HTTPRequests / 1e6 * HTTPAPIPerMillion},
		{"SQS", u.SQSRequests / 1e6 * SQSFIFOPerMillion},
		{"S3", u.S3Puts/1e3*S3PutPerThousand + u.S3Gets/1e3*S3GetPerThousand},
	}
}

// Total is the usage's price.
func (u Usage) Total() float64 {
	t := 0.0
	for _, l := range u.Lines() {
		t += l.Dollars
	}
	return t
}

// String renders "DynamoDB writes $1.19, …; total $1.52".
func (u Usage) String() string {
	var parts []string
	for _, l := range u.Lines() {
		parts = append(parts, fmt.Sprintf("%s $%.4f", l.Service, l.Dollars))
	}
	return fmt.Sprintf("%s; total $%.2f", strings.Join(parts, ", "), u.Total())
}
