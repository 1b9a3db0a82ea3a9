package redact

import (
	"testing"
)

// Code, command lines and documentation that look like the shapes of the rules but hold
// no secret stay as they are: references, identifiers, options, placeholders, examples.
func TestRedactLeavesLookalikesAlone(t *testing.T) {
	r := mustRedactor(t, Options{})
	for _, s := range []string{
		"token = identifier.NAME_V2",
		"api_key = settings.API_KEY_V2\n",
		"self.username, self.password = credentials\n",
		"password: Optional[str] = None",
		"password := cfg.Password",
		"password = new_password\n",
		"user.password = hashedPassword\n",
		"DB_PASSWORD=${DB_PASSWORD}",
		"mysql --password PASSWORD db",
		"mysql --password $DB_PASSWORD db",
		"mysql --password=YOUR_PASSWORD db",
		`password: "changeme"`,
		`{"password": "********"}`,
		`{"password": "Password is required"}`,
		"gcc -pedantic-errors -pthread -o x x.c",
		`cmd := exec.Command(compiler, "-print-prog-name=as")`,
		"go tool trace -pprof=TYPE trace.out",
		"bundle -o=h2_bundle.go -prefix=http2 -tags=!nethttpomithttp2",
		"docker run -p 8080:80 -p127.0.0.1:9000:9000 nginx",
		`// "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==" returns ("Aladdin", "open sesame", true).`,
		"Authorization: Basic authentication is not supported",
		"See the SG.Renderer.Options docs and hf_hub_download_file.",
		"npm_config_registry=https://registry.npmjs.org/",
	} {
		if got := r.RedactString(s); got != s {
			t.Errorf("%q became %q", s, got)
		}
	}
}

// Each value of the new shapes is found whole, in whatever way it is quoted or ends.
func TestRedactPasswordShapes(t *testing.T) {
	r := mustRedactor(t, Options{})
	for _, c := range []struct{ in, want string }{
		{"DB_PASSWORD=!Xk29fLm3Qp7Zr\n", "DB_PASSWORD=[REDACTED:generic-secret]\n"},
		{"export DB_PASSWORD=\"@Xk29fLm3Qp7Zr\"", "export DB_PASSWORD=\"[REDACTED:generic-secret]\""},
		{"url: postgres://app:%7Ea9Xk29fLm3Q@db/app", "url: postgres://app:[REDACTED:url-password]@db/app"},
		{"password: hunter2hunter2\nuser: bob", "password: [REDACTED:generic-secret]\nuser: bob"},
		{`db_passwd = 'letmein2024'`, `db_passwd = '[REDACTED:generic-secret]'`},
		{"mysql -h db --password hunter2hunter2 app", "mysql -h db --password [REDACTED:password-flag] app"},
		{"mysql -h db --password=hunter2hunter2 app", "mysql -h db --password=[REDACTED:password-flag] app"},
		{"mysql -uroot -pSecret123x app", "mysql -uroot -p[REDACTED:password-flag] app"},
		{"-H \"Authorization: Basic ZGVwbG95OlMzY3JldC1wYXNzITc3\"", "-H \"Authorization: Basic [REDACTED:basic-auth]\""},
		{"AccountName=a;AccountKey=" + azureKey + ";EndpointSuffix=core.windows.net",
			"AccountName=a;AccountKey=[REDACTED:azure-storage-key];EndpointSuffix=core.windows.net"},
	} {
		if got := r.RedactString(c.in); got != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

const azureKey = "Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5d2FsZG9mcmVkcGx1Z2g0NTY3ODkwYWJjZGVmZ2hpams="
