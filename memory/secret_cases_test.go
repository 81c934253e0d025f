package memory_test

import (
	"testing"

	"engram/memory"
)

// secretCategory is one way people write a secret (issue 22), with texts
// written that way; every one of them must be refused.
type secretCategory struct {
	name  string
	texts []string
}

var secretCategories = []secretCategory{
	{"key split by spaces", []string{
		"my openai key: sk-proj- Xa9Kd0Lm 3Qw7Er5T yU1iO2pA 6sD4fG8h",
		"sk-proj- 7HbN2kPq 9WzX4cVm L0aS3dFg 5JhK8lZx",
		"the key is sk- 4fG7hJ2k L9mN3pQ8 rS1tU6vW 0xY5zA",
		"token ghp_ 1a2B3c4D 5e6F7g8H 9i0J1k2L 3m4N5o6P 7q8R",
		"slack xoxb- 1234 5678 9012 - 1234567890123 - AbCdEfGh IjKlMnOp",
		"key: sk-ant- api03- Xk9mP2qR 7tY4wE1z 8nB3vC6x",
		"github token ghp_ 9Zx8Cv7B n6M5aS4d F3gH2jK1 lQ0wE9rT y8U7",
		"sk-proj- Ab3dEf6H ij9KlM2n Op5QrS8t",
	}},
	{"spaced-out AWS key", []string{
		"aws: AKIA IOSF ODNN 7ABC DEFG",
		"access key A K I A 2 E 3 F 4 G 5 H 6 J 7 K 2 L 3 M",
		"AKIA 4Q7R 2ZXT 6WMB 5NCE for the backup bucket",
		"our key AKIA-J3K6-QW2P-7LMX-4RTZ",
		"AKIA 5TQX 3ZRW 2YPL 7MNB",
		"aws id A-K-I-A-2-3-4-5-6-7-A-B-C-D-E-F-G-H-J-K",
		"akia key: AKIA VB2D Q6ZS 4KLM 3NTR",
	}},
	{"password for the X is", []string{
		"the password for the home router is tulip-77-garden",
		"The password of my work laptop is Gr33nT3a!",
		"password to the NAS is blue sky 42",
		"the admin password on the camera is 8r1ghtS1de",
		"Password for the Netflix account: movienight2024",
		"the password for my laptop is Ranunculus#4",
		"password to my bank is Opera2019",
		"the password of the wifi router is mangoTree77",
		"password for grandma's iPad: Kitty1950",
	}},
	{"passphrase of plain words", []string{
		"my passphrase is correct horse battery staple",
		"The GPG passphrase: orange river silent mountain",
		"wallet recovery phrase is ladder spirit oyster kettle famous wrap",
		"my pass phrase is purple elephant dancing slowly",
		"passphrase: velvet thunder orbit canyon",
		"my ssh key passphrase is 'glass river quiet fox'",
		"the backup phrase is oak maple birch cedar pine",
	}},
	{"wifi pw", []string{
		"wifi pw: sunflower88",
		"guest wifi pwd = Xk92!mmq",
		"WLAN pw is hausboot-7",
		"pw: trustno1",
		"Home wifi password - LemonTree#5",
		"WiFi: HomeNet, pw: Banana!42",
		"wlan pwd: gruenerApfel7",
		"the guest wifi pw = 55667788",
	}},
	{"German/French/Spanish and others", []string{
		"Das Passwort ist Sommer2024!",
		"Mein Kennwort lautet bergsee77",
		"WLAN-Passwort: Zugspitze#12",
		"Le mot de passe est soleil1234",
		"mot de passe du wifi : Chat-noir-9",
		"La contraseña es perro123",
		"contraseña del correo: Madrid#2023",
		"A senha é banana42",
		"Het wachtwoord is fiets8899",
		"La password è gatto2020",
		"Mitt lösenord är Kanelbulle7",
		"Passwort lautet: Hamburg1987",
		"das Kennwort für den Rechner ist Otter!23",
		"le mot de passe du routeur est Lune2022",
		"mi contraseña es Sevilla77",
		"wachtwoord: Tulp2024",
	}},
	{"Chinese simplified and traditional", []string{
		"我的密码是abc12345",
		"密碼：Qw7x!9kd",
		"口令 tiger2024",
		"wifi密码为 88886666",
		"邮箱的密码是 Mail#2023",
		"我的支付密码是 135790",
		"他把密码改成了 sunny77",
		"資料庫密碼是 Db_pass_99",
		"我的邮箱密码是 qq123456",
		"密碼為 Taipei101",
		"开机密码：0923",
		"口令是 sesame88",
		"网银密码 Ab123456",
	}},
	{"64-hex API token", []string{
		"api token 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		"use e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 as the bearer",
		"X-Api-Key: 4a7d1ed414474e4033ac29ccb8653d9b4a7d1ed414474e4033ac29ccb8653d9b",
		"Datadog key 0123456789abcdef0123456789abcdef",
		"token 5f4dcc3b5aa765d61d8327deb882cf99e3b0c44298fc1c149afbf4c8996fb924",
		"my API key: 7a1c9e3f5b2d4a6c8e0f1a3b5c7d9e2f",
	}},
	{"aws_secret_access_key", []string{
		"aws_secret_access_key wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8nT4x2Wk",
		"aws_secret_access_key = Tq9mZ8v2Lk4nR7pX1sW3yB6cD0fG5hJ8kM2nP4qR",
		"AWS_SECRET_ACCESS_KEY=h7Jk2Lm9Np4Qr6St8Uv0Wx3Yz5Ab1Cd7Ef9Gh2Ij",
		"the secret access key is 9sK2mP4nQ7rT1vX3zB5dF8hJ0lN2pR4tV6xZ8bD",
		"aws_secret_access_key=Zx9Kq2Lm7Np4Rt6Vw8Yb1Cd3Ef5Gh7Jk9Lm2Nq4S",
		"secret_access_key: Pq8Wm2Xn5Rt7Yb9Zc1Vd3Fg5Hj7Kl9Mn2Bv4Cx6Z",
	}},
	{"bank PIN", []string{
		"my bank PIN is 4821",
		"银行卡密码 482193",
		"Card PIN: 0912",
		"the PIN code for my debit card is 7734",
		"Meine PIN ist 5521",
		"my ATM pin = 2468",
		"PIN for my Visa is 6012",
		"bank card pin: 3344",
		"我的银行卡密码是 889900",
		"Handy-PIN: 4711",
	}},
	{"connection URL with password", []string{
		"db: postgres://u:p4ss@db.example.com/app",
		"mongodb+srv://admin:Sup3rS3cret@cluster0.abcde.mongodb.net/test",
		"cache at redis://:hunter2pw@10.0.0.5:6379/0",
		"mysql://root:toor1234@localhost:3306/shop",
		"amqp://guest:rabbit-pw-9@mq.internal:5672",
		"https://alice:wonderland42@git.example.org/repo.git",
		"postgresql://admin:S3cure!@pg.internal:5432/main",
		"redis://default:r3d1sPass@cache:6379",
		"mongodb+srv://bob:Pa55word@cluster1.xyz.mongodb.net",
	}},
	{"long base64 token", []string{
		"export TOKEN=Zm9vYmFyQmF6UXV4MTIzNDU2Nzg5MGFiY2RlZg9X",
		"bearer dGhpcyBpcyBhIHNlY3JldCB0b2tlbiBmb3IgdGhlIGFwaTEyMzQ1Ng==",
		"my refresh token Q2xhc3NpY1Rva2VuVmFsdWUrL3dpdGhTbGFzaGVzMTIzNDU2",
		"session cookie: s%3AaB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5bC7dE",
		"refresh_token eW91IHNob3VsZCBub3Qgc3RvcmUgdGhpcyB0b2tlbiBhbnl3aGVyZQ==",
		"auth: Basic YWRtaW46c3VwZXJzZWNyZXQxMjM=",
	}},
	{"key with dashes inserted", []string{
		"sk-proj-Xa9K-d0Lm-3Qw7-Er5T-yU1i-O2pA",
		"ghp_1a2B-3c4D-5e6F-7g8H-9i0J-1k2L-3m4N-5o6P-7q8R",
		"AKIA-2E3F-4G5H-6J7K-2L3M",
		"AIza-SyA1bC2dE3-fG4hI5jK6l-M7nO8pQ9rS-0tU1v",
		"glpat-Ab12-Cd34-Ef56-Gh78-Ij90",
		"ghp-1a2B-3c4D-5e6F-7g8H-9i0J-1k2L-3m4N-5o6P-7q8R",
		"sk-proj-Xa9K--d0Lm--3Qw7--Er5T--yU1i",
		"xoxb-1234-5678-9012-3456-AbCd-EfGh-IjKl",
	}},
	{"value before its name", []string{
		"Summer2024! is my password",
		"4821 is the PIN of my debit card.",
		"Blue-Falcon-9 is our home wifi password for guests",
		"abc12345是我的密码",
	}},
	{"card number and security code", []string{
		"my Visa card 4111 1111 1111 1111 expires 12/27",
		"信用卡号 5500-0000-0000-0004",
		"Card CVV 731",
		"security code: 0492",
	}},
}

// notSecrets are ordinary memories that mention the words secrets are
// written with, or hold ids and URLs that are not credentials.
var notSecrets = []string{
	"my password manager is Bitwarden",
	"I forgot my password again",
	"The user studies cryptography (密码学) at Tsinghua.",
	"fixed in a1b2c3d",
	"The bug was fixed in commit 3f2a9c1e5b7d4f6a8c0e2b4d6f8a1c3e5b7d9f0a.",
	"The build ID is 123e4567-e89b-12d3-a456-426614174000.",
	"request id 550e8400e29b41d4a716446655440000 failed with a timeout",
	"The password is stored in 1Password.",
	"the password for the router is on the sticker under it",
	"The password is never to be saved in notes.",
	"Passwords must be at least 12 characters long.",
	"She changed her password yesterday after the phishing mail.",
	"The key is to sleep eight hours before an exam.",
	"The token count of the prompt is 4096.",
	"Uses a PIN pad at the office door.",
	"Her PIN is stored in the bank app, not in notes.",
	"Das Passwort ist im Passwortmanager gespeichert.",
	"Le mot de passe est dans le coffre-fort.",
	"La contraseña es demasiado corta.",
	"用户忘记了邮箱密码，需要重置。",
	"他在大学学习密码学和信息安全。",
	"密码是在密码管理器里保存的。",
	"用户喜欢喝绿茶，每天早上跑步五公里。",
	"我每天早上八点去公司，周末去爬山。",
	"The user prefers tabs over spaces in Go code.",
	"Caroline went to the LGBTQ support group on 7 May 2023.",
	"Docs live at https://go.dev/doc/effective_go and https://example.com:8443/a/b?c=d",
	"Clone from git@github.com:example/engram.git",
	"The meeting is at 10:30 in room B-204.",
	"sha256 checksum e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	"Call the office at +49 30 1234 5678.",
	"Version 2.7.1 of fyne.io/fyne/v2 fixes the Wayland bug.",
	"Project path: /home/user/src/github.com/example/engram-desktop-app",
	"Use internationalization_and_localization_helpers for strings.",
	"The passphrase must be at least four words.",
	"my wifi pw is the same as the router one",
	"The ISBN is 978-3-16-148410-0.",
	"The API key is kept in the environment variable OPENAI_API_KEY.",
	"The secret to good bread is patience.",
	"The user changed the wifi password last Tuesday.",
	"Passwort vergessen, neues angefordert.",
	"她的密码学作业得了满分。",
	"PIN entry is disabled on the kiosk.",
	"Keys to the flat are with the neighbour.",
	"The hash of the file is 9e107d9d372bb6826bd81d3542a419d6 (md5).",
	"commit 4b825dc642cb6eb9a060e54bf8d69288fbee4904",
	"Token Ring networks are obsolete.",
	"postgres://localhost:5432/app is the dev database",
	"mot de passe oublié",
	"contraseña olvidada, pedir otra",
	"The user's favourite number is 4821.",
	"Bitwarden is my favourite password manager.",
	"Order 4111 1111 1111 1111 shipped",
	"My public key is ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGk3Kq8vXz0WbYtQ2pLr9sN4mF7hJ1cD6eA5bU8oT3xR user@laptop",
	"Use ParseTimeWithLooseRFC3339 for the timestamps.",
}

// TestSecretCategories checks every way of writing a secret of issue 22 and
// the ordinary memories that must stay allowed; go test -v prints the table.
func TestSecretCategories(t *testing.T) {
	for _, c := range secretCategories {
		flagged := 0
		for _, s := range c.texts {
			if _, ok := memory.Secret(s); ok {
				flagged++
			} else {
				t.Errorf("%s: Secret(%q) = false, want a secret", c.name, s)
			}
		}
		t.Logf("%-36s attempts %2d flagged %2d", c.name, len(c.texts), flagged)
	}
	allowed := 0
	for _, s := range notSecrets {
		if what, ok := memory.Secret(s); ok {
			t.Errorf("Secret(%q) = %s, want none", s, what)
		} else {
			allowed++
		}
	}
	t.Logf("%-36s texts %2d allowed %2d", "ordinary memories", len(notSecrets), allowed)
}
