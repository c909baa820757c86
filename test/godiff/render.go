// Command render is the Go side of Mailroom's differential template test (issue 15, "A differential
// test against Go itself"). It renders a corpus of templates with Go's own html/template and
// text/template and Sprig, set up the way listmonk sets them up, so that test/godiff/differential.test.ts
// can compare Mailroom's renderer with Go byte for byte.
//
// Input (the file named by the first argument, else stdin; JSON): {"now": RFC 3339 time, "root": root URL, "catalogue": {key: string},
// "cases": [case...]}. Output (stdout, JSON): {"funcs": [registered function names], "results":
// [{"id", "ok", "out", "err"}...]}, one result per case, in order.
//
// Case kinds:
//   - "html", "text": the sources are parsed as listmonk parses a campaign (its shorthand rewrites,
//     the first source is the entry, later ones are added with AddParseTree) and executed with the
//     case's data, decoded from JSON the way encoding/json decodes it (numbers are float64), except
//     for typed wrappers: {"$int": n} is an int, {"$time": RFC 3339} a time.Time, {"$html": s} a
//     template.HTML.
//   - "campaign": a listmonk-shaped campaign and subscriber (structs mirroring listmonk's models) are
//     compiled and rendered as listmonk's campaign manager does: subject (text/template, only when it
//     holds both "{{" and "}}"), body inside its template (html/template), altbody (html/template),
//     header values (text/template). "target" picks the output compared: body, subject, altbody or
//     header:<Name>.
//
// listmonk's own functions (TrackLink, TrackView, UnsubscribeURL, ManageURL, OptinURL, MessageURL,
// ArchiveURL, RootURL, Date, L, Safe) are small implementations written here from listmonk's
// documented behaviour (its URL formats and i18n rules); no listmonk code is used. The clock is fixed
// (input "now") for Date and Sprig's now, so that outputs are deterministic; link tracking uses a
// deterministic stand-in for listmonk's links table (the link UUID is derived from the URL).
//
// Built in GOPATH mode against Debian's golang-github-masterminds-sprig-dev (Sprig 3.2.3); Sprig 3.3.0's
// one addition, sha512sum, is added here so the function set matches listmonk's.
package main

import (
	"bytes"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"fmt"
	htmltpl "html/template"
	"io"
	"os"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	txttpl "text/template"
	"time"
	// The zone database is built in, so dateInZone does not depend on the system's tzdata.
	_ "time/tzdata"

	"github.com/Masterminds/sprig"
)

// ---------------------------------------------------------------------------------------------------
// Input and output.

type source struct {
	Name   string `json:"name"`
	Source string `json:"source"`
}

type campaignIn struct {
	ID          int                 `json:"id"`
	UUID        string              `json:"uuid"`
	Name        string              `json:"name"`
	Subject     string              `json:"subject"`
	FromEmail   string              `json:"from_email"`
	Body        string              `json:"body"`
	AltBody     *string             `json:"altbody"`
	ContentType string              `json:"content_type"`
	Status      string              `json:"status"`
	Type        string              `json:"type"`
	Tags        []string            `json:"tags"`
	Headers     []map[string]string `json:"headers"`
	Attribs     json.RawMessage     `json:"attribs"`
	TemplateID  *int                `json:"template_id"`
	Messenger   string              `json:"messenger"`
	Archive     bool                `json:"archive"`
	ArchiveSlug *string             `json:"archive_slug"`
	SendAt      *time.Time          `json:"send_at"`
	StartedAt   *time.Time          `json:"started_at"`
	CreatedAt   time.Time           `json:"created_at"`
	UpdatedAt   time.Time           `json:"updated_at"`
	Views       int                 `json:"views"`
	Clicks      int                 `json:"clicks"`
	Bounces     int                 `json:"bounces"`
	ToSend      int                 `json:"to_send"`
	Sent        int                 `json:"sent"`
	Lists       json.RawMessage     `json:"lists"`
}

type subscriberIn struct {
	ID        int             `json:"id"`
	UUID      string          `json:"uuid"`
	Email     string          `json:"email"`
	Name      string          `json:"name"`
	Status    string          `json:"status"`
	Attribs   json.RawMessage `json:"attribs"`
	CreatedAt time.Time       `json:"created_at"`
	UpdatedAt time.Time       `json:"updated_at"`
	Lists     json.RawMessage `json:"lists"`
}

type caseIn struct {
	ID         string          `json:"id"`
	Kind       string          `json:"kind"`
	Sources    []source        `json:"sources"`
	Data       json.RawMessage `json:"data"`
	Campaign   *campaignIn     `json:"campaign"`
	Subscriber *subscriberIn   `json:"subscriber"`
	Template   *string         `json:"template"`
	Target     string          `json:"target"`
	Tracking   *bool           `json:"tracking"`
}

type input struct {
	Now       time.Time         `json:"now"`
	Root      string            `json:"root"`
	Catalogue map[string]string `json:"catalogue"`
	Cases     []caseIn          `json:"cases"`
}

type result struct {
	ID  string `json:"id"`
	OK  bool   `json:"ok"`
	Out string `json:"out"`
	Err string `json:"err,omitempty"`
}

type output struct {
	GoVersion string   `json:"goVersion"`
	Funcs     []string `json:"funcs"`
	Results   []result `json:"results"`
}

// ---------------------------------------------------------------------------------------------------
// Data structures shaped like listmonk's models (field names, types and nullable wrappers), so that
// templates see what listmonk's templates see.

// NullTime mirrors the nullable time listmonk's models use (a Time and a Valid flag).
type NullTime struct {
	Time  time.Time
	Valid bool
}

// NullString mirrors listmonk's nullable string.
type NullString struct {
	String string
	Valid  bool
}

// NullInt mirrors listmonk's nullable int.
type NullInt struct {
	Int   int
	Valid bool
}

// JSONText is raw JSON text that prints as text, like the JSON columns listmonk exposes.
type JSONText []byte

func (j JSONText) String() string { return string(j) }

// Base holds the fields listmonk's models share.
type Base struct {
	ID        int
	CreatedAt NullTime
	UpdatedAt NullTime
}

// CampaignMeta holds a campaign's progress counters.
type CampaignMeta struct {
	CampaignID int
	Views      int
	Clicks     int
	Bounces    int
	Lists      JSONText
	Media      JSONText
	StartedAt  NullTime
	ToSend     int
	Sent       int
}

// Campaign has listmonk's campaign fields.
type Campaign struct {
	Base
	CampaignMeta

	UUID              string
	Type              string
	Name              string
	Subject           string
	FromEmail         string
	Body              string
	BodySource        NullString
	AltBody           NullString
	SendAt            NullTime
	Status            string
	ContentType       string
	Tags              []string
	Headers           []map[string]string
	Attribs           map[string]interface{}
	TemplateID        NullInt
	Messenger         string
	Archive           bool
	ArchiveSlug       NullString
	ArchiveTemplateID NullInt
	ArchiveMeta       json.RawMessage

	TemplateBody        string
	ArchiveTemplateBody string
	Tpl                 *htmltpl.Template
	SubjectTpl          *txttpl.Template
	AltBodyTpl          *htmltpl.Template
	HeaderTpls          []map[string]*txttpl.Template
	MediaIDs            []int64
	Total               int
}

// Subscriber has listmonk's subscriber fields.
type Subscriber struct {
	Base

	UUID    string
	Email   string
	Name    string
	Attribs map[string]interface{}
	Status  string
	Lists   JSONText
}

// FirstName is the first space-separated word longer than 2 bytes, else the whole name (listmonk's rule).
func (s Subscriber) FirstName() string {
	for _, w := range strings.Split(s.Name, " ") {
		if len(w) > 2 {
			return w
		}
	}
	return s.Name
}

// LastName is the last space-separated word longer than 2 bytes, else the whole name (listmonk's rule).
func (s Subscriber) LastName() string {
	w := strings.Split(s.Name, " ")
	for i := len(w) - 1; i >= 0; i-- {
		if len(w[i]) > 2 {
			return w[i]
		}
	}
	return s.Name
}

// CampaignMessage is what a campaign's templates get as ".": the campaign, the subscriber, and the
// rendered subject and bodies through methods.
type CampaignMessage struct {
	Campaign   *Campaign
	Subscriber Subscriber

	subject  string
	body     []byte
	altBody  []byte
	unsubURL string
}

// Subject is the rendered subject.
func (m *CampaignMessage) Subject() string { return m.subject }

// Body is a copy of the rendered body.
func (m *CampaignMessage) Body() []byte { return append([]byte(nil), m.body...) }

// AltBody is a copy of the rendered alternative body.
func (m *CampaignMessage) AltBody() []byte { return append([]byte(nil), m.altBody...) }

// ---------------------------------------------------------------------------------------------------
// i18n as listmonk's templates see it: T, Ts, Tc over a catalogue of "singular | plural" strings.

// I18n translates keys with listmonk's rules: an unknown key is itself; "a | b" is singular a and
// plural b; Ts substitutes {name} params given as pairs (an odd count answers "<key>: Invalid
// arguments"), resolving {key}s inside values; Tc is plural for n > 1.
type I18n struct{ m map[string]string }

var reI18nParam = regexp.MustCompile(`(?i)\{([a-z0-9-.]+)\}`)

func singular(s string) string {
	if i := strings.Index(s, "|"); i >= 0 {
		return strings.TrimSpace(s[:i])
	}
	return s
}

func plural(s string) string {
	if !strings.Contains(s, "|") {
		return s
	}
	parts := strings.Split(s, "|")
	if len(parts) == 2 {
		return strings.TrimSpace(parts[1])
	}
	return strings.TrimSpace(parts[0])
}

// T translates key (singular form).
func (i *I18n) T(key string) string {
	s, ok := i.m[key]
	if !ok {
		return key
	}
	return singular(s)
}

func (i *I18n) resolveParams(s string, depth int) string {
	if depth > 10 || !strings.Contains(s, "{") {
		return s
	}
	found := reI18nParam.FindAllStringSubmatch(s, -1)
	if len(found) == 0 {
		return s
	}
	for _, p := range found {
		s = strings.ReplaceAll(s, p[0], i.T(p[1]))
	}
	return i.resolveParams(s, depth+1)
}

// Ts translates key and substitutes {name} params.
func (i *I18n) Ts(key string, params ...string) string {
	if len(params)%2 != 0 {
		return key + ": Invalid arguments"
	}
	s, ok := i.m[key]
	if !ok {
		return key
	}
	s = singular(s)
	for n := 0; n < len(params); n += 2 {
		s = strings.ReplaceAll(s, "{"+params[n]+"}", i.resolveParams(params[n+1], 0))
	}
	return s
}

// Tc translates key choosing the plural form for n > 1.
func (i *I18n) Tc(key string, n int) string {
	s, ok := i.m[key]
	if !ok {
		return key
	}
	if n > 1 {
		return plural(s)
	}
	return singular(s)
}

// ---------------------------------------------------------------------------------------------------
// listmonk's set-up: its function map and its shorthand rewrites.

const zeroUUID = "00000000-0000-0000-0000-000000000000"

type env struct {
	now      time.Time
	root     string
	i18n     *I18n
	tracking bool
}

// URL formats of listmonk's manager configuration, as documented: root + path with %s for UUIDs.
func (e *env) unsubURL() string     { return e.root + "/subscription/%s/%s" }
func (e *env) optinURL() string     { return e.root + "/subscription/optin/%s?%s" }
func (e *env) messageURL() string   { return e.root + "/campaign/%s/%s" }
func (e *env) linkTrackURL() string { return e.root + "/link/%s/%s/%s" }
func (e *env) viewTrackURL() string { return e.root + "/campaign/%s/%s/px.png" }

// FakeLinkUUID stands in for the UUID listmonk's links table gives a URL: a UUID-shaped hash of it.
// The TypeScript side derives the same value.
func FakeLinkUUID(url string) string {
	h := sha256.Sum256([]byte(url))
	x := hex.EncodeToString(h[:16])
	return x[0:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32]
}

// genericFuncs is listmonk's generic function map: Date, L, Safe and Sprig's generic functions
// without env, expandenv and getHostByName. now and Date read the fixed clock.
func genericFuncs(e *env) map[string]interface{} {
	f := map[string]interface{}{
		"Date": func(layout string) string {
			if layout == "" {
				layout = time.ANSIC
			}
			return e.now.Format(layout)
		},
		"L": func() *I18n { return e.i18n },
		"Safe": func(s string) htmltpl.HTML {
			return htmltpl.HTML(s)
		},
	}
	sp := sprig.GenericFuncMap()
	delete(sp, "env")
	delete(sp, "expandenv")
	delete(sp, "getHostByName")
	// Sprig 3.3.0 (listmonk's version) adds sha512sum to Debian's 3.2.3.
	sp["sha512sum"] = func(input string) string {
		h := sha512.Sum512([]byte(input))
		return hex.EncodeToString(h[:])
	}
	// A fixed clock, so outputs are deterministic (Mailroom's side gets the same clock).
	sp["now"] = func() time.Time { return e.now }
	for k, v := range sp {
		f[k] = v
	}
	return f
}

// campaignFuncs adds the per-campaign functions listmonk registers for campaign templates. They take
// the message (".") as their last argument, as listmonk's rewritten shorthands pass it.
func campaignFuncs(e *env, c *Campaign) map[string]interface{} {
	f := genericFuncs(e)
	f["TrackLink"] = func(url string, msg *CampaignMessage) string {
		if !e.tracking {
			return url
		}
		url = strings.ReplaceAll(url, "&amp;", "&")
		return fmt.Sprintf(e.linkTrackURL(), FakeLinkUUID(url), msg.Campaign.UUID, msg.Subscriber.UUID)
	}
	f["TrackView"] = func(msg *CampaignMessage) htmltpl.HTML {
		if !e.tracking {
			return ""
		}
		return htmltpl.HTML(fmt.Sprintf(`<img src="%s" width="1" height="1" style="display:none;max-height:0;max-width:0;opacity:0" alt="">`,
			fmt.Sprintf(e.viewTrackURL(), msg.Campaign.UUID, msg.Subscriber.UUID)))
	}
	f["UnsubscribeURL"] = func(msg *CampaignMessage) string { return msg.unsubURL }
	f["ManageURL"] = func(msg *CampaignMessage) string { return msg.unsubURL + "?manage=true" }
	f["OptinURL"] = func(msg *CampaignMessage) string { return fmt.Sprintf(e.optinURL(), msg.Subscriber.UUID, "") }
	f["MessageURL"] = func(msg *CampaignMessage) string {
		return fmt.Sprintf(e.messageURL(), c.UUID, msg.Subscriber.UUID)
	}
	f["ArchiveURL"] = func() string { return e.root + "/archive" }
	f["RootURL"] = func() string { return e.root }
	return f
}

// The shorthand rewrites listmonk applies to campaign sources before parsing: TrackLink "url" gets
// the dot, url@TrackLink becomes a TrackLink call, and the URL functions written alone get the dot.
var rewrites = []struct {
	re   *regexp.Regexp
	repl string
}{
	{regexp.MustCompile(`{{\s*TrackLink\s+"([^"]+)"\s*}}`), `{{ TrackLink "$1" . }}`},
	{regexp.MustCompile(`(https?://[\p{L}\p{N}_\-\.~!#$&'()*+,/:;=?@\[\]%]*)@TrackLink`), `{{ TrackLink "$1" . }}`},
	{regexp.MustCompile(`{{(\s+)?(TrackView|UnsubscribeURL|ManageURL|OptinURL|MessageURL)(\s+)?}}`), `{{ $2 . }}`},
}

func rewrite(s string) string {
	for _, r := range rewrites {
		s = r.re.ReplaceAllString(s, r.repl)
	}
	return s
}

// hasTplExpr is listmonk's test for "this string is a template": it holds "{{" followed by "}}".
func hasTplExpr(s string) bool {
	i := strings.Index(s, "{{")
	return i >= 0 && strings.Contains(s[i+2:], "}}")
}

// ---------------------------------------------------------------------------------------------------
// Typed data: JSON decoded as encoding/json does, with wrappers for Go types JSON cannot express.

func convert(v interface{}) interface{} {
	switch x := v.(type) {
	case map[string]interface{}:
		if len(x) == 1 {
			if n, ok := x["$int"]; ok {
				return int(n.(float64))
			}
			if s, ok := x["$time"]; ok {
				t, err := time.Parse(time.RFC3339Nano, s.(string))
				if err != nil {
					panic(err)
				}
				return t.UTC()
			}
			if s, ok := x["$html"]; ok {
				return htmltpl.HTML(s.(string))
			}
			if l, ok := x["$strings"]; ok {
				out := []string{}
				for _, e := range l.([]interface{}) {
					out = append(out, e.(string))
				}
				return out
			}
			if l, ok := x["$ints"]; ok {
				out := []int{}
				for _, e := range l.([]interface{}) {
					out = append(out, int(e.(float64)))
				}
				return out
			}
		}
		for k, e := range x {
			x[k] = convert(e)
		}
		return x
	case []interface{}:
		for i, e := range x {
			x[i] = convert(e)
		}
		return x
	}
	return v
}

func decodeData(raw json.RawMessage) interface{} {
	if len(raw) == 0 {
		return nil
	}
	var v interface{}
	if err := json.Unmarshal(raw, &v); err != nil {
		panic(err)
	}
	return convert(v)
}

func decodeMap(raw json.RawMessage) map[string]interface{} {
	v := decodeData(raw)
	if m, ok := v.(map[string]interface{}); ok {
		return m
	}
	return map[string]interface{}{}
}

func nullTime(t *time.Time) NullTime {
	if t == nil {
		return NullTime{}
	}
	return NullTime{Time: t.UTC(), Valid: true}
}

func nullString(s *string) NullString {
	if s == nil {
		return NullString{}
	}
	return NullString{String: *s, Valid: true}
}

// ---------------------------------------------------------------------------------------------------
// Rendering.

// renderPlain runs an "html" or "text" case: the first source is the entry; later sources are parsed
// separately and added with AddParseTree, as listmonk adds a campaign body to its template.
func renderPlain(e *env, c caseIn) (string, error) {
	data := decodeData(c.Data)
	funcs := campaignFuncs(e, &Campaign{})
	var out bytes.Buffer
	if c.Kind == "text" {
		var root *txttpl.Template
		for i, s := range c.Sources {
			t, err := txttpl.New(s.Name).Funcs(funcs).Parse(rewrite(s.Source))
			if err != nil {
				return "", err
			}
			if i == 0 {
				root = t
			} else if _, err := root.AddParseTree(s.Name, t.Tree); err != nil {
				return "", err
			}
		}
		err := root.ExecuteTemplate(&out, c.Sources[0].Name, data)
		return out.String(), err
	}
	var root *htmltpl.Template
	for i, s := range c.Sources {
		t, err := htmltpl.New(s.Name).Funcs(funcs).Parse(rewrite(s.Source))
		if err != nil {
			return "", err
		}
		if i == 0 {
			root = t
		} else if _, err := root.AddParseTree(s.Name, t.Tree); err != nil {
			return "", err
		}
	}
	err := root.ExecuteTemplate(&out, c.Sources[0].Name, data)
	return out.String(), err
}

// renderCampaign compiles a campaign as listmonk's campaign compiler does and renders one message.
func renderCampaign(e *env, c caseIn) (string, error) {
	ci, si := c.Campaign, c.Subscriber
	camp := &Campaign{
		Base:        Base{ID: ci.ID, CreatedAt: nullTime(&ci.CreatedAt), UpdatedAt: nullTime(&ci.UpdatedAt)},
		UUID:        ci.UUID,
		Type:        ci.Type,
		Name:        ci.Name,
		Subject:     ci.Subject,
		FromEmail:   ci.FromEmail,
		Body:        ci.Body,
		AltBody:     nullString(ci.AltBody),
		SendAt:      nullTime(ci.SendAt),
		Status:      ci.Status,
		ContentType: ci.ContentType,
		Tags:        ci.Tags,
		Headers:     ci.Headers,
		Attribs:     decodeMap(ci.Attribs),
		Messenger:   ci.Messenger,
		Archive:     ci.Archive,
		ArchiveSlug: nullString(ci.ArchiveSlug),
		ArchiveMeta: json.RawMessage("{}"),
	}
	camp.CampaignMeta = CampaignMeta{
		CampaignID: ci.ID, Views: ci.Views, Clicks: ci.Clicks, Bounces: ci.Bounces,
		Lists: JSONText(ci.Lists), Media: JSONText("[]"), StartedAt: nullTime(ci.StartedAt),
		ToSend: ci.ToSend, Sent: ci.Sent,
	}
	if ci.TemplateID != nil {
		camp.TemplateID = NullInt{Int: *ci.TemplateID, Valid: true}
	}
	if c.Template != nil {
		camp.TemplateBody = *c.Template
	}
	sub := Subscriber{
		Base:    Base{ID: si.ID, CreatedAt: nullTime(&si.CreatedAt), UpdatedAt: nullTime(&si.UpdatedAt)},
		UUID:    si.UUID,
		Email:   si.Email,
		Name:    si.Name,
		Attribs: decodeMap(si.Attribs),
		Status:  si.Status,
		Lists:   JSONText(si.Lists),
	}
	if len(sub.Lists) == 0 {
		sub.Lists = JSONText("[]")
	}
	funcs := campaignFuncs(e, camp)

	// Compile, as listmonk compiles a campaign.
	if hasTplExpr(camp.Subject) {
		t, err := txttpl.New("content").Funcs(funcs).Parse(rewrite(camp.Subject))
		if err != nil {
			return "", err
		}
		camp.SubjectTpl = t
	}
	base := camp.TemplateBody
	if base == "" || camp.ContentType == "visual" {
		base = `{{ template "content" . }}`
	}
	baseTpl, err := htmltpl.New("base").Funcs(funcs).Parse(rewrite(base))
	if err != nil {
		return "", err
	}
	if camp.ContentType == "markdown" {
		return "", fmt.Errorf("markdown is not supported by this harness")
	}
	msgTpl, err := htmltpl.New("content").Funcs(funcs).Parse(rewrite(camp.Body))
	if err != nil {
		return "", err
	}
	if camp.Tpl, err = baseTpl.AddParseTree("content", msgTpl.Tree); err != nil {
		return "", err
	}
	if hasTplExpr(camp.AltBody.String) {
		t, err := htmltpl.New("content").Funcs(funcs).Parse(rewrite(camp.AltBody.String))
		if err != nil {
			return "", err
		}
		camp.AltBodyTpl = t
	}
	headerTpls := map[string]*txttpl.Template{}
	for _, set := range camp.Headers {
		for k, v := range set {
			if hasTplExpr(v) {
				t, err := txttpl.New("content").Funcs(funcs).Parse(v)
				if err != nil {
					return "", err
				}
				headerTpls[k] = t
			}
		}
	}

	// Render, as listmonk renders one message: subject first, then body, altbody, headers.
	msg := &CampaignMessage{
		Campaign: camp, Subscriber: sub, subject: camp.Subject,
		unsubURL: fmt.Sprintf(e.unsubURL(), camp.UUID, sub.UUID),
	}
	var out bytes.Buffer
	if camp.SubjectTpl != nil {
		if err := camp.SubjectTpl.ExecuteTemplate(&out, "content", msg); err != nil {
			return "", err
		}
		msg.subject = out.String()
		out.Reset()
	}
	if err := camp.Tpl.ExecuteTemplate(&out, "base", msg); err != nil {
		return "", err
	}
	msg.body = append([]byte(nil), out.Bytes()...)
	out.Reset()
	if camp.ContentType != "plain" && camp.AltBody.Valid {
		if camp.AltBodyTpl != nil {
			if err := camp.AltBodyTpl.ExecuteTemplate(&out, "content", msg); err != nil {
				return "", err
			}
			msg.altBody = append([]byte(nil), out.Bytes()...)
			out.Reset()
		} else {
			msg.altBody = []byte(camp.AltBody.String)
		}
	}
	headers := map[string]string{}
	for _, set := range camp.Headers {
		for k, v := range set {
			if t := headerTpls[k]; t != nil {
				out.Reset()
				if err := t.ExecuteTemplate(&out, "content", msg); err != nil {
					return "", err
				}
				headers[k] = out.String()
			} else {
				headers[k] = v
			}
		}
	}

	switch {
	case c.Target == "" || c.Target == "body":
		return string(msg.body), nil
	case c.Target == "subject":
		return msg.subject, nil
	case c.Target == "altbody":
		return string(msg.altBody), nil
	case strings.HasPrefix(c.Target, "header:"):
		return headers[strings.TrimPrefix(c.Target, "header:")], nil
	}
	return "", fmt.Errorf("unknown target %q", c.Target)
}

func runCase(e *env, c caseIn) (res result) {
	res.ID = c.ID
	defer func() {
		if r := recover(); r != nil {
			res.OK, res.Out, res.Err = false, "", fmt.Sprintf("panic: %v", r)
		}
	}()
	var (
		out string
		err error
	)
	caseEnv := *e
	if c.Tracking != nil {
		caseEnv.tracking = *c.Tracking
	}
	switch c.Kind {
	case "html", "text":
		out, err = renderPlain(&caseEnv, c)
	case "campaign":
		out, err = renderCampaign(&caseEnv, c)
	default:
		err = fmt.Errorf("unknown case kind %q", c.Kind)
	}
	if err != nil {
		return result{ID: c.ID, OK: false, Err: err.Error()}
	}
	return result{ID: c.ID, OK: true, Out: out}
}

func main() {
	// Mailroom formats times in UTC; so does this reference (listmonk uses the server's zone).
	time.Local = time.UTC
	var in input
	src := io.Reader(os.Stdin)
	if len(os.Args) > 1 {
		f, err := os.Open(os.Args[1])
		if err != nil {
			fmt.Fprintln(os.Stderr, "render:", err)
			os.Exit(2)
		}
		defer f.Close()
		src = f
	}
	dec := json.NewDecoder(src)
	if err := dec.Decode(&in); err != nil {
		fmt.Fprintln(os.Stderr, "render: bad input:", err)
		os.Exit(2)
	}
	e := &env{now: in.Now.UTC(), root: in.Root, i18n: &I18n{m: in.Catalogue}, tracking: true}
	if e.i18n.m == nil {
		e.i18n.m = map[string]string{}
	}
	names := []string{}
	for k := range campaignFuncs(e, &Campaign{}) {
		names = append(names, k)
	}
	sort.Strings(names)
	out := output{Funcs: names, Results: make([]result, len(in.Cases)), GoVersion: runtime.Version()}
	// Cases are independent: run them on every core (key generation and bcrypt are slow).
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < runtime.NumCPU(); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out.Results[i] = runCase(e, in.Cases[i])
			}
		}()
	}
	for i := range in.Cases {
		next <- i
	}
	close(next)
	wg.Wait()
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, "render:", err)
		os.Exit(1)
	}
}
