package secret

import "testing"

// TestFindMoreWritings holds writings beside those of the categories of
// memory's tests: other services, connectors, languages and sentences
// that only talk about secrets.
func TestFindMoreWritings(t *testing.T) {
	secrets := []string{
		"My Gmail password is Hunter42",
		"password: swordfish",
		"the wifi password is 'blueberry pancake'",
		"Wi-Fi password: Kaffee-Haus-2024",
		"The code to the garage door is 1357",
		"my PIN is 1234",
		"PIN 8842 for the card",
		"github token: ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5b",
		"OPENAI_API_KEY=sk-abc123def456ghi789jkl012mno345",
		"anthropic key sk-ant-api03-abcdefghijklmnop1234567890",
		"Stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc",
		"my slack token is xoxp-1234567890-1234567890-1234567890-abcdef1234567890abcdef1234567890",
		"Das WLAN Passwort lautet: Maus1234",
		"Kennwort für das NAS: Blume!88",
		"mon mot de passe : chocolat88",
		"contraseña: Gato#2021",
		"我的银行卡密码是 246810",
		"WiFi密码：12345678",
		"登录密码为Abc@2024",
		"支付宝支付密码 668899",
		"密碼是 qwerty123",
		"passwd=Tr0ub4dor&3",
		"DATABASE_URL=postgresql://app:Pa55w0rd@db:5432/app",
		"mongodb://root:example123@mongo:27017",
		"the root password of the server is Xy7#pQ2!",
		"login: alice / pw: Alice2024!",
		"ssh passphrase is tiger lily orchard breeze",
		"seed phrase: abandon ability able about above absent absorb abstract",
		"Secret key: 7c4a8d09ca3762af61e59520943dc26494f8941b",
		"api key 3f8e1a9b2c7d4e6f8a0b1c2d3e4f5a6b",
		"AWS secret: wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8nT4x2Wk",
		"token=eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
		"gh p_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R",
		"Passwort: Sonnenschein",
		"remember: password = dragon",
		"my password is now Summer2025",
	}
	plain := []string{
		"The user reset the password for the router last week.",
		"The password policy requires 12 characters.",
		"Use a password manager such as KeePassXC.",
		"She keeps her passwords in 1Password.",
		"my password is too weak, I should change it",
		"The PIN is printed on the letter from the bank.",
		"The key insight was that caching helps.",
		"The secret ingredient is cinnamon.",
		"Token limits are 128k for this model.",
		"Ask for the wifi password at the front desk.",
		"他忘记了银行卡密码，去银行重置了。",
		"密码管理器用的是 Bitwarden",
		"The commit 9fceb02d0ae598e95dc970b74767f19372d61af8 introduced the bug.",
		"Docker image sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae",
		"The meeting id is 8473 9921 0043.",
		"Order number 1234-5678-9012 arrived.",
		"The user's phone is 555-0199.",
		"He was born in 1987 and lives at 42 Elm Street.",
		"Tracking number 1Z999AA10123456784",
		"The PIN code of the new office is not yet known.",
		"password: see the shared vault",
		"The passphrase is in my notebook.",
		"the password is the name of my first dog",
		"She said the password was written on a sticky note.",
		"the key is in the drawer",
		"My PIN is the same as my birthday.",
		"The Wi-Fi password is on the back of the router.",
		"wifi: Cafe_Guest (no password)",
		"The doc at https://docs.example.com/api/v2/tokens?expand=true explains tokens.",
		"base64 of hello is aGVsbG8=",
		"Caroline's favourite band is Arctic Monkeys.",
		"Melanie ran a 5K charity race on 20 May 2023 with her kids.",
		"Kubernetes secret name: db-credentials",
		"API keys go in .env, never in git.",
		"The password field must not be empty.",
		"Das Passwort muss mindestens 8 Zeichen haben.",
		"Le mot de passe a expiré hier.",
		"密码错误三次后账户会被锁定。",
		"请把口令告诉管理员。",
		"密码2024年起必须至少12位。",
		"新密码123456位太长了",
		"The user reset their key on 2024-01-15T10:30:00Z.",
		"Syncthing names conflict copies memory.sync-conflict-20261201-101010-ABCDEFG.json",
	}
	for _, s := range secrets {
		if _, ok := Find(s); !ok {
			t.Errorf("Find(%q) = false, want a secret", s)
		}
	}
	for _, s := range plain {
		if what, ok := Find(s); ok {
			t.Errorf("Find(%q) = %s, want none", s, what)
		}
	}
}
