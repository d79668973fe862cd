// Markdown for the model's answers. Everything is escaped first, so HTML the model writes is shown as
// text; then a small, fixed set of markdown becomes markup: fenced and inline code, headings, lists,
// bold, italic and http(s) links.
"use strict";

function escapeHtml(text) {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

function unescapeHtml(text) {
  return text.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">").replace(/&amp;/g, "&");
}

function renderInline(escaped) {
  const codes = [];
  let text = escaped.replace(/`([^`\n]+)`/g, (_m, code) => {
    codes.push(code);
    return "\u0000" + (codes.length - 1) + "\u0000";
  });
  text = text
    .replace(/\*\*([^*\n]+)\*\*/g, "<strong>$1</strong>")
    .replace(/(^|[^*\w])\*([^*\n]+)\*(?=[^*\w]|$)/g, "$1<em>$2</em>")
    .replace(/(^|[^_\w])_([^_\n]+)_(?=[^_\w]|$)/g, "$1<em>$2</em>")
    .replace(/\[([^\]\n]+)\]\((https?:\/\/[^\s)]+)\)/g,
      '<a href="$2" target="_blank" rel="noopener noreferrer">$1</a>');
  return text.replace(/\u0000(\d+)\u0000/g, (_m, i) => "<code>" + codes[Number(i)] + "</code>");
}

function renderMarkdown(source) {
  const lines = escapeHtml(source).split("\n");
  const out = [];
  let paragraph = [];
  let list = null; // "ul" | "ol"
  let quote = [];
  const flushParagraph = () => {
    if (paragraph.length) out.push("<p>" + paragraph.map(renderInline).join("<br>") + "</p>");
    paragraph = [];
  };
  const closeList = () => { if (list) { out.push("</" + list + ">"); list = null; } };
  const closeQuote = () => {
    if (quote.length) out.push("<blockquote>" + renderMarkdown(quote.join("\n")) + "</blockquote>");
    quote = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const quoted = line.match(/^\s*&gt;\s?(.*)$/);
    if (quoted) {
      flushParagraph(); closeList();
      quote.push(unescapeHtml(quoted[1]));
      continue;
    }
    closeQuote();
    const fence = line.match(/^\s*```/);
    if (fence) {
      flushParagraph(); closeList();
      const code = [];
      i++;
      while (i < lines.length && !/^\s*```/.test(lines[i])) code.push(lines[i++]);
      out.push("<pre><code>" + code.join("\n") + "</code></pre>");
      continue;
    }
    const heading = line.match(/^(#{1,4})\s+(.*)$/);
    const bullet = line.match(/^\s*[-*+]\s+(.*)$/);
    const numbered = line.match(/^\s*\d+[.)]\s+(.*)$/);
    if (heading) {
      flushParagraph(); closeList();
      const level = heading[1].length + 2; // h3..h6: inside a message, smaller than the page's
      out.push("<h" + level + ">" + renderInline(heading[2]) + "</h" + level + ">");
    } else if (bullet || numbered) {
      flushParagraph();
      const kind = bullet ? "ul" : "ol";
      if (list !== kind) { closeList(); out.push("<" + kind + ">"); list = kind; }
      out.push("<li>" + renderInline((bullet || numbered)[1]) + "</li>");
    } else if (!line.trim()) {
      flushParagraph(); closeList();
    } else {
      closeList();
      paragraph.push(line);
    }
  }
  flushParagraph(); closeList(); closeQuote();
  return out.join("");
}
