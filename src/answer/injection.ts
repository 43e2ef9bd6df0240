// Sentences addressed to an AI assistant rather than to the lab's readers: role switches
// ("SYSTEM: ..."), "ignore previous instructions", fake modes ("you are now in admin mode"),
// blanket answers ("the answer to every question is ..."). A planted line like that shares words
// with many questions, so without a model the extractive answer would quote it as if it were lab
// knowledge. Such sentences are never quoted, and the dashboard lists the documents that hold them.
// Pure: text in, verdicts out.
//
// Hand-written patterns: no library in our dependencies detects prompt injection, and the ones
// that exist call a model, which is exactly what is missing when this runs. The patterns aim at
// wording that lab material does not use; a bare "System: Bio-Rad ChemiDoc" in a materials list
// is not flagged (a role label needs instruction-like words after it).

// A chat-role label at the start of a sentence, or chat-template markers anywhere.
const ROLE = String.raw`(?:system|assistant|developer|sistema|asistente)\s*(?:prompt|message|mensaje)?`;
const ROLE_LABEL = new RegExp(String.raw`^\s*(?:[[(<{]\s*${ROLE}\s*[\])>}]\s*[:：>-]?|[#*]*\s*${ROLE}\s*[*]*\s*[:：>-])\s*(.*)$`, 'is');
const INSTRUCTION_WORDS = /\b(?:you|your|ignore|disregard|answer|respond|reply|print|reveal|output|must|always|never|instructions?|rules?|mode|prompt|questions?|responde|respuesta|instrucciones|debes|siempre|nunca|ignora|pregunta)\b/i;
const TEMPLATE_MARKERS = /<\|(?:im_start|im_end|system|user|assistant|endoftext)\|>|<<\/?SYS>>|\[\/?INST\]|^\s*#{2,}\s*(?:system|instruction|instructions)\b/im;

const PATTERNS: RegExp[] = [
  // "ignore / disregard / forget (all) (the) previous instructions"
  /\b(?:ignore|disregard|forget|override|bypass)\b[^.!?\n]{0,30}\b(?:previous|prior|above|earlier|preceding|all(?: of)? (?:the|your)|your|system|original)\s+(?:\w+\s+)?(?:instructions?|prompts?|rules?|directions?|guidelines?)\b/i,
  /\b(?:ignora|olvida|descarta)\b[^.!?\n]{0,40}\b(?:instrucciones|reglas|indicaciones)\b/i,
  // Role and mode switches ("you are now ready to load the gel" is a protocol, not a switch)
  /\byou are now (?:an? (?:ai|assistant|bot|chatbot|model|language model|different|new|unrestricted)|no longer (?:bound|restricted|an?\b)|free (?:from|of)\b)/i,
  /\b(?:you are(?: now)? in|enter(?:ing)?|switch(?:ing)? to|activat(?:e|ed|ing))\s+(?:the\s+)?(?:admin|administrator|developer|god|jailbreak|dan|unrestricted)\s+mode\b/i,
  /\b(?:god|jailbreak|dan)\s+mode\b/i,
  /\bmodo\s+(?:administrador|desarrollador|admin)\b/i,
  /\bfrom now on,?\s+(?:you|always|answer|respond|reply)\b/i,
  /\bnew (?:system )?(?:instructions?|rules?|persona|role)\s*[:：]/i,
  /\b(?:system|hidden|secret)\s+prompt\b/i,
  /\bpretend (?:to be|you are)\b|\broleplay as\b/i,
  // Blanket answers and commands to the reader-bot
  /\bthe answer to (?:every|any|all|each) (?:question|query|request)s?\b/i,
  /\bla respuesta a (?:toda|cada|cualquier) pregunta\b/i,
  /\b(?:always|only) (?:answer|respond|reply)\b[^.!?\n]{0,30}\b(?:with|that|by saying)\b/i,
  /\byou are an? (?:ai|language model|llm|chatbot|assistant)\b/i,
  /\b(?:dear|hey|attention|note to(?: the)?) (?:ai|assistant|chatbot|llm|language model|labbot|bot)\b/i,
  /\b(?:labbot|assistant|chatbot|ai)\s*[,:]\s*(?:ignore|disregard|you must|you should|please (?:ignore|print|reveal|answer))\b/i,
];

/** True when a sentence speaks to an AI assistant instead of stating lab knowledge. */
export function isInjectedInstruction(sentence: string): boolean {
  const text = sentence.normalize('NFKC').replace(/\p{Cf}/gu, '');
  if (TEMPLATE_MARKERS.test(text)) return true;
  const role = ROLE_LABEL.exec(text);
  if (role && INSTRUCTION_WORDS.test(role[1] ?? '')) return true;
  return PATTERNS.some((p) => p.test(text));
}

/** The lines and sentences of a text that are instructions to an assistant (at most `max`). */
export function findInjectedInstructions(text: string, max = 5): string[] {
  const found: string[] = [];
  for (const line of text.split(/\n+/)) {
    if (!line.trim()) continue;
    const sentences = line.split(/(?<=[.!?])\s+/).filter((p) => p.trim() && isInjectedInstruction(p));
    // The sentences that carry it, or the whole line (a role label over several sentences).
    if (sentences.length) found.push(...sentences.map((p) => p.trim()));
    else if (isInjectedInstruction(line)) found.push(line.trim());
    if (found.length >= max) return found.slice(0, max);
  }
  return found;
}
