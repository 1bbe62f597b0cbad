package logsafe

import "testing"

func TestText(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"quoted e-mail", `Can't find any customers with email: "ada@example.com"`, `Can't find any customers with email: "…"`},
		{"bare e-mail", `ada.lovelace+billing@mail.example.co.uk is not a team member of this account`, `<email> is not a team member of this account`},
		{"quoted name", `Subscription "Ada's plan \"gold\"" does not exist`, `Subscription "…" does not exist`},
		{"several", `"a@b.io" and c@d.io`, `"…" and <email>`},
		{"nothing personal", `Parameter per_page must be between 1 and 200`, `Parameter per_page must be between 1 and 200`},
		{"empty", ``, ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Text(tt.in); got != tt.want {
				t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
