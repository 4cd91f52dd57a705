import { describe, expect, it } from "vitest";
import { imagePlaceholder, markdownToHtml, neutralizeHtml } from "./markdown-to-html.js";

describe("markdownToHtml", () => {
  it("renders Markdown and keeps harmless raw HTML", () => {
    const { html } = markdownToHtml(
      '# Title\n\n**bold** <span style="color: red">red</span>\n\n| a |\n|---|\n| 1 |',
      "t",
    );
    expect(html).toContain("<h1>Title</h1>");
    expect(html).toContain('<strong>bold</strong> <span style="color: red">red</span>');
    expect(html).toContain("<td>1</td>");
  });

  it("puts placeholders for Markdown images and lists their sources", () => {
    const { html, images } = markdownToHtml(
      '![chart](https://example.com/c.png "Chart") and ![x](file:///etc/passwd)',
      "tok",
    );
    expect(images).toEqual(["https://example.com/c.png", "file:///etc/passwd"]);
    expect(html).toContain(`<img src="${imagePlaceholder("tok", 0)}" alt="chart" title="Chart">`);
    expect(html).toContain(`<img src="${imagePlaceholder("tok", 1)}" alt="x">`);
    expect(html).not.toContain("example.com/c.png");
  });
});

describe("neutralizeHtml", () => {
  it.each([
    "<script>alert(1)</script>",
    "<SCRIPT src=//x.example/a.js></SCRIPT>",
    "<scr<script>x</script>ipt>alert(1)</script>",
    "<script>never closed",
    "<p>a</p><script\n>alert(1)</script\n>",
  ])("leaves no script element of %j", (html) => {
    expect(neutralizeHtml(html)).not.toMatch(/<script/i);
  });

  it("removes embedding and document-changing elements, keeping their fallback text", () => {
    const html = neutralizeHtml(
      '<iframe src="http://127.0.0.1:9/">fallback</iframe><object data="x"></object><embed src="x">' +
        '<meta http-equiv="refresh" content="0;url=http://evil.example"><base href="http://evil.example/">' +
        '<link rel="stylesheet" href="http://127.0.0.1/x.css"><form action="http://evil.example"><input></form>',
    );
    expect(html).not.toMatch(/<(iframe|object|embed|meta|base|link|form)\b/i);
    expect(html).toContain("fallback");
  });

  it("disarms event-handler attributes", () => {
    const html = neutralizeHtml('<img src="x" onerror="alert(1)"><svg/onload=alert(1)><p title="onx=1">on=</p>');
    expect(html).not.toMatch(/\son[a-z]+\s*=/i);
    expect(html).not.toMatch(/\/onload=/i);
    expect(html).toContain("<p");
  });
});
