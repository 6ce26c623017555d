package web

import (
	"bytes"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/service"
)

// AttachmentURL is the path of a record's payload (an imported image or
// file), as the browser downloads or shows it.
func AttachmentURL(id string) string { return "/a/" + url.PathEscape(id) }

// inlineImages are the payload types shown in the page, by the type the
// bytes themselves declare (http.DetectContentType's signatures): raster
// formats a browser decodes and never runs.
var inlineImages = map[string]string{
	"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp",
	"image/bmp": ".bmp", "image/x-icon": ".ico",
}

// payloadCSP goes on every payload: a payload opened as a document (a
// download a browser chose to show after all) runs no script, loads
// nothing and has an origin of its own (sandbox), so it cannot read the
// records.
const payloadCSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox"

// attachment serves the payload of the record handle names: its bytes,
// with a type taken from the bytes, never from the record's name. A raster
// image is shown inline; an SVG is image/svg+xml (so an <img> in a page
// draws it, where browsers run no script and load nothing) but is a
// download when opened as a document, and sandboxed by payloadCSP besides;
// everything else is application/octet-stream and a download.
func (ws *Server) attachment(w http.ResponseWriter, r *http.Request) {
	ws.lend(w, r, func(svc *service.Service) { serveAttachment(w, r, svc) })
}

func serveAttachment(w http.ResponseWriter, r *http.Request, svc *service.Service) {
	name, data, err := payloadOf(svc, r.PathValue("handle"))
	if err != nil {
		status := http.StatusInternalServerError
		if ke, ok := err.(*kernel.Error); ok {
			status = httpStatus(ke.Code)
		}
		http.Error(w, err.Error(), status)
		return
	}
	ctype, disposition := payloadType(name, data)
	h := w.Header()
	h.Set("Content-Type", ctype)
	h.Set("Content-Disposition", disposition)
	h.Set("Content-Security-Policy", payloadCSP)
	// ServeContent answers ranges and HEAD; it keeps the type set above.
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(data))
}

// payloadOf reads the payload of the record handle names, with the name
// it is saved as: NOT_FOUND when no record answers or it has no payload.
func payloadOf(svc *service.Service, handle string) (string, []byte, error) {
	v, err := svc.View()
	if err != nil {
		return "", nil, err
	}
	id, err := v.Resolve(handle)
	if err != nil {
		return "", nil, err
	}
	if id == "" {
		return "", nil, kernel.Errorf(kernel.CodeNotFound, "no record matches %q", handle)
	}
	rec, err := v.Record(id)
	if err != nil {
		return "", nil, err
	}
	ref := payloadRef(rec)
	if ref == "" {
		return "", nil, kernel.Errorf(kernel.CodeNotFound, "record %s holds no payload", id)
	}
	data, err := v.Payload(ref)
	if err != nil {
		return "", nil, err
	}
	return rec.Title, data, nil
}

func payloadRef(r *kernel.Record) string {
	if r == nil || r.Source == nil {
		return ""
	}
	return r.Source.Payload
}

// payloadType is the Content-Type and Content-Disposition a payload is
// served with. What the bytes are decides whether it is shown: a file
// named diagram.png that holds HTML is a download, and an image named
// page.html is an image saved as page.html.png.
func payloadType(name string, data []byte) (ctype, disposition string) {
	name = downloadName(name)
	sniffed, _, _ := strings.Cut(http.DetectContentType(data), ";")
	if ext, ok := inlineImages[sniffed]; ok {
		if !strings.EqualFold(path.Ext(name), ext) && !(ext == ".jpg" && strings.EqualFold(path.Ext(name), ".jpeg")) {
			name += ext
		}
		return sniffed, contentDisposition("inline", name)
	}
	if looksLikeSVG(name, data) {
		return "image/svg+xml", contentDisposition("attachment", name)
	}
	return "application/octet-stream", contentDisposition("attachment", name)
}

// looksLikeSVG: named .svg, and text that is not HTML by the sniffing
// rules (an HTML file renamed .svg stays a plain download).
func looksLikeSVG(name string, data []byte) bool {
	if !strings.EqualFold(path.Ext(name), ".svg") {
		return false
	}
	switch ct := http.DetectContentType(data); {
	case strings.HasPrefix(ct, "text/xml"), strings.HasPrefix(ct, "text/plain"):
		return bytes.Contains(data[:min(len(data), 4096)], []byte("<svg"))
	}
	return false
}

// downloadName is a record's title made a file name a browser saves
// safely: the last path segment, without control or formatting characters
// (a right-to-left override makes "gnp.exe" read as "exe.png"), at most
// 200 bytes, never empty or a dot name.
func downloadName(title string) string {
	title = strings.ReplaceAll(title, `\`, "/")
	if i := strings.LastIndexByte(title, '/'); i >= 0 {
		title = title[i+1:]
	}
	var b strings.Builder
	for _, r := range title {
		switch {
		case r == utf8.RuneError, unicode.IsControl(r), unicode.Is(unicode.Cf, r), r == '"':
			continue
		}
		if b.Len()+utf8.RuneLen(r) > 200 {
			break
		}
		b.WriteRune(r)
	}
	name := strings.TrimSpace(b.String())
	if strings.Trim(name, ".") == "" {
		return "attachment"
	}
	return name
}

// contentDisposition is the header value for a disposition and a file
// name: quoted, or RFC 2231-encoded when it is not ASCII.
func contentDisposition(disposition, name string) string {
	if v := mime.FormatMediaType(disposition, map[string]string{"filename": name}); v != "" {
		return v
	}
	return disposition
}

// attachmentOf is what a record page shows of a record's payload: the
// picture, or a link to download it. nil: the record has none.
type attachmentView struct {
	URL, Name string
	Image     bool
}

func attachmentOf(r *kernel.Record) *attachmentView {
	if payloadRef(r) == "" {
		return nil
	}
	name := downloadName(r.Title)
	return &attachmentView{URL: AttachmentURL(r.ID), Name: name, Image: imageName(name)}
}

// imageName reports whether a file name is an image's, which decides only
// how a page points at it (an <img>, or a download link): what the server
// answers for it is decided by its bytes (payloadType).
func imageName(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".ico", ".svg":
		return true
	}
	return false
}
