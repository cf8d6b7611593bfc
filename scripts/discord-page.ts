/**
 * Messages as Discord's dark theme shows them, as one HTML page: for the README's pictures
 * (scripts/screenshots.ts). It draws what the bot sent the fake Discord (content with Discord's
 * Markdown, embeds, buttons), not a mock-up of it. Close enough to read as Discord; not a copy of
 * its stylesheet.
 */

/** A message as drawn: who, when, and what the bot (or a person) sent. */
export interface DrawnMessage {
  author: { name: string; bot?: boolean; colour?: string };
  at: string;
  content: string;
  embeds?: readonly DrawnEmbed[];
  buttons?: readonly string[];
  /** An ephemeral reply: "Only you can see this". */
  onlyYou?: boolean;
  /** A reply to another message: its author and first words. */
  replyTo?: { name: string; text: string };
}

export interface DrawnEmbed {
  title?: string;
  description?: string;
  color?: number;
  fields?: readonly { name: string; value: string }[];
  footer?: { text: string };
}

/** How ids in the text read: `<@id>` as @name, `<#id>` as #channel. */
export interface Names {
  users: ReadonlyMap<string, string>;
  channels: ReadonlyMap<string, string>;
}

const escape = (text: string) =>
  text.replace(/[&<>"]/g, (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot' }[c]};`);

/** One line of Discord Markdown: code, bold, italics, links, mentions, timestamps. */
function inline(text: string, names: Names): string {
  const codes: string[] = [];
  let html = escape(text).replace(/`([^`]+)`/g, (_, code: string) => `\uE000${codes.push(code) - 1}\uE000`);
  html = html
    .replace(/\*\*(.+?)\*\*/g, '<b>$1</b>')
    .replace(/(^|[^\\*])\*([^*]+)\*/g, '$1<i>$2</i>')
    .replace(/\[([^\]]+)\]\((https?:[^)]+)\)/g, '<a>$1</a>')
    .replace(
      /&lt;@!?(\d+)&gt;/g,
      (_, id: string) => `<span class="mention">@${escape(names.users.get(id) ?? 'someone')}</span>`,
    )
    .replace(
      /&lt;#(\d+)&gt;/g,
      (_, id: string) => `<span class="mention">#${escape(names.channels.get(id) ?? 'channel')}</span>`,
    )
    .replace(/&lt;t:(\d+):?[A-Za-z]?&gt;/g, '<span class="time">today at 09:41</span>')
    .replace(/\\([*_`~|<>@#[\]()-])/g, '$1');
  return html.replace(/\uE000(\d+)\uE000/g, (_, index: string) => `<code>${codes[Number(index)]}</code>`);
}

/** Discord Markdown, line by line: quotes, subtext (`-#`), headings, lists, code blocks. */
export function markdown(text: string, names: Names): string {
  const out: string[] = [];
  let block: string[] | null = null;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) {
      if (block) out.push(`<pre>${escape(block.join('\n'))}</pre>`);
      block = block ? null : [];
    } else if (block) block.push(line);
    else if (line.startsWith('> ')) out.push(`<blockquote>${inline(line.slice(2), names)}</blockquote>`);
    else if (line.startsWith('-# ')) out.push(`<div class="sub">${inline(line.slice(3), names)}</div>`);
    else if (/^#{1,3} /.test(line)) out.push(`<div class="h">${inline(line.replace(/^#+ /, ''), names)}</div>`);
    else if (/^\s*- /.test(line)) out.push(`<div class="li">• ${inline(line.replace(/^\s*- /, ''), names)}</div>`);
    else out.push(line.trim() === '' ? '<div class="gap"></div>' : `<div>${inline(line, names)}</div>`);
  }
  return out.join('');
}

function embed(drawn: DrawnEmbed, names: Names): string {
  const colour = `#${(drawn.color ?? 0x5865f2).toString(16).padStart(6, '0')}`;
  return `<div class="embed" style="border-left-color:${colour}">
    ${drawn.title ? `<div class="et">${inline(drawn.title, names)}</div>` : ''}
    ${drawn.description ? `<div class="ed">${markdown(drawn.description, names)}</div>` : ''}
    ${(drawn.fields ?? []).map((field) => `<div class="ef"><b>${inline(field.name, names)}</b><div>${markdown(field.value, names)}</div></div>`).join('')}
    ${drawn.footer ? `<div class="foot">${inline(drawn.footer.text, names)}</div>` : ''}
  </div>`;
}

function message(drawn: DrawnMessage, names: Names): string {
  const initial = escape(drawn.author.name.slice(0, 1).toUpperCase());
  return `<div class="msg${drawn.onlyYou ? ' eph' : ''}">
    ${drawn.replyTo ? `<div class="reply">↱ <b>@${escape(drawn.replyTo.name)}</b> ${inline(drawn.replyTo.text, names)}</div>` : ''}
    <div class="row"><div class="av" style="background:${drawn.author.colour ?? '#5865f2'}">${initial}</div><div class="body">
    <div class="head"><span class="name">${escape(drawn.author.name)}</span>${drawn.author.bot ? '<span class="app">APP</span>' : ''}<span class="ts">${escape(drawn.at)}</span></div>
    <div class="text">${markdown(drawn.content, names)}</div>
    ${(drawn.embeds ?? []).map((item) => embed(item, names)).join('')}
    ${drawn.buttons?.length ? `<div class="buttons">${drawn.buttons.map((label) => `<span class="btn">${escape(label)}</span>`).join('')}</div>` : ''}
    ${drawn.onlyYou ? '<div class="sub">👁 Only you can see this • <a>Dismiss message</a></div>' : ''}
    </div></div></div>`;
}

const style = `
  body { margin: 0; background: #313338; color: #dbdee1; font: 15px/1.375 "DejaVu Sans", sans-serif; width: 560px; }
  .bar { padding: 12px 16px; border-bottom: 1px solid #1f2023; color: #f2f3f5; font-weight: bold; }
  .bar span { color: #80848e; font-weight: normal; margin-right: 6px; }
  .msg { padding: 8px 16px 8px 16px; }
  .eph { background: #2b2d5c33; }
  .row { display: flex; gap: 14px; }
  .av { flex: none; width: 40px; height: 40px; border-radius: 50%; color: #fff; font-weight: bold;
        display: flex; align-items: center; justify-content: center; font-size: 18px; }
  .body { min-width: 0; flex: 1; }
  .head { margin-bottom: 2px; } .name { color: #f2f3f5; font-weight: 600; }
  .app { background: #5865f2; color: #fff; font-size: 10px; border-radius: 3px; padding: 1px 4px; margin-left: 6px; vertical-align: 2px; }
  .ts { color: #949ba4; font-size: 12px; margin-left: 8px; }
  .text div { min-height: 1.2em; } .gap { height: 6px; }
  .h { font-weight: bold; font-size: 17px; color: #f2f3f5; }
  .sub { color: #949ba4; font-size: 12px; } .li { padding-left: 6px; }
  blockquote { margin: 0; padding-left: 10px; border-left: 4px solid #4e5058; }
  code { background: #2b2d31; border-radius: 3px; padding: 0 3px; font-size: 13px; font-family: "DejaVu Sans Mono", monospace; }
  pre { background: #2b2d31; border: 1px solid #1e1f22; border-radius: 4px; padding: 7px; white-space: pre-wrap; font-size: 13px; margin: 4px 0; }
  a { color: #00a8fc; } .mention { background: #5865f24d; color: #c9cdfb; border-radius: 3px; padding: 0 2px; }
  .time { background: #4e505866; border-radius: 3px; padding: 0 2px; }
  .embed { background: #2b2d31; border-left: 4px solid; border-radius: 4px; padding: 8px 12px 10px; margin-top: 4px; max-width: 470px; }
  .et { font-weight: bold; color: #f2f3f5; margin-bottom: 4px; } .ed, .ef { font-size: 14px; } .ef { margin-top: 6px; }
  .foot { color: #b5bac1; font-size: 12px; margin-top: 8px; }
  .buttons { margin-top: 6px; display: flex; gap: 8px; flex-wrap: wrap; }
  .btn { background: #4e5058; color: #fff; border-radius: 3px; padding: 4px 14px; font-size: 14px; }
  .reply { color: #949ba4; font-size: 13px; margin: 0 0 2px 54px; }
`;

/** The page: a channel bar, then the messages in order. */
export function discordPage(title: string, drawn: readonly DrawnMessage[], names: Names): string {
  return `<!doctype html><html><head><meta charset="utf-8"><style>${style}</style></head><body>
    <div class="bar"><span>#</span>${escape(title)}</div>
    ${drawn.map((item) => message(item, names)).join('')}
    <div style="height:8px"></div></body></html>`;
}
