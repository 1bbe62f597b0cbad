package engine

import (
	"fmt"
	"time"
)

// reclassificationWindows are the proximate_movement_reclassification settings (§4.4).
var reclassificationWindows = map[string]time.Duration{
	"one_minute_reclassification":  time.Minute,
	"ten_minutes_reclassification": 10 * time.Minute,
	"one_hour_reclassification":    time.Hour,
	"one_day_reclassification":     24 * time.Hour,
	"one_week_reclassification":    7 * 24 * time.Hour,
	"thirty_days_reclassification": 30 * 24 * time.Hour,
	"sixty_days_reclassification":  60 * 24 * time.Hour,
	"ninety_days_reclassification": 90 * 24 * time.Hour,
}

// reclassify applies Smart Activity Classification: expansions and contractions that follow a
// new business or reactivation within the window take its type; contractions that precede a
// churn within the window become churn. Only types change, never amounts. A run stops at the
// first movement of another kind, and the window is measured from the anchoring movement.
// Movements at the very same instant are grouped even with reclassification off: several
// subscriptions bought at once are new business each (the recorded fixture, §4.4).
func reclassify(moves []rawMove, setting string) {
	w := reclassificationWindows[setting] // zero when off
	for i := range moves {
		anchor := moves[i]
		if anchor.typ != NewBusiness && anchor.typ != Reactivation {
			continue
		}
		for j := i + 1; j < len(moves) && moves[j].at.Sub(anchor.at) <= w; j++ {
			if moves[j].typ != Expansion && moves[j].typ != Contraction {
				break
			}
			moves[j].typ = anchor.typ
		}
	}
	for i := range moves {
		if moves[i].typ != Churn {
			continue
		}
		for j := i - 1; j >= 0 && moves[i].at.Sub(moves[j].at) <= w && moves[j].typ == Contraction; j-- {
			moves[j].typ = Churn
		}
	}
}

func planName(p Plan) string {
	if p.Name != "" {
		return p.Name
	}
	return p.ExternalID
}

// describe words a movement. Only "purchased the X plan" is recorded from ChartMogul; the
// other phrasings are ours (see docs/metrics-engine.md).
func describe(m rawMove) string {
	name := planName(m.plan)
	switch m.typ {
	case NewBusiness:
		return fmt.Sprintf("purchased the %s plan", name)
	case Reactivation:
		return fmt.Sprintf("reactivated the %s plan", name)
	case Churn:
		return fmt.Sprintf("cancelled the %s plan", name)
	case Expansion:
		if m.prevPlan.UUID != "" && m.prevPlan.UUID != m.plan.UUID {
			return fmt.Sprintf("upgraded from the %s plan to the %s plan", planName(m.prevPlan), name)
		}
		return fmt.Sprintf("expanded the %s plan", name)
	case Contraction:
		if m.prevPlan.UUID != "" && m.prevPlan.UUID != m.plan.UUID {
			return fmt.Sprintf("downgraded from the %s plan to the %s plan", planName(m.prevPlan), name)
		}
		return fmt.Sprintf("contracted the %s plan", name)
	}
	return ""
}
