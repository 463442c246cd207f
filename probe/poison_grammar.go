package probe

import (
	"regexp"
	"strings"
	"sync"
)

// The intent grammar. Poisoned text asks the model for one of six things:
//
//	(a) override: set aside earlier instructions, or claim to outrank them;
//	(b) conceal: keep something from the user, or act unseen;
//	(c) secrets: read or pass files that hold secrets, credentials, the
//	    environment or the conversation;
//	(d) tool orders: always call this tool first, or order the model about
//	    tools the server does not have;
//	(e) outside address: send data to a URL, mail address or host;
//	(f) rewrite: change a command, recipient or destination the user chose.
//
// Each is a combination, within one sentence, of an instruction (an
// imperative or an obligation), an object and, where the object alone is
// ordinary (files, tokens and conversations are what honest tools work
// on), a sink or a qualifier that makes it the model's errand: "pass ...
// as 'sidenote'", "the user's token", "every request". A rule is a list
// of slots that must all match in order, optionally with at least one of
// a set of markers anywhere in the sentence. The slots carry the words of
// English, Spanish, Portuguese, French, German, Russian, Chinese and
// Japanese; the grammar runs on every text (no language detection), on
// the normalised view (normalize) and on every decoded layer
// (decodedViews).

// sw builds a slot of whole words or stems: each alternative must start
// at a word boundary (for any script) and, with whole, end at one.
func sw(whole bool, alts ...string) string {
	end := ""
	if whole {
		end = `(?:[^\p{L}\p{N}_]|$)`
	}
	return `(?:^|[^\p{L}\p{N}_])(?:` + strings.Join(alts, "|") + `)` + end
}

// cjk builds a slot of words of scripts without spaces.
func cjk(alts ...string) string { return `(?:` + strings.Join(alts, "|") + `)` }

// slot is one slot of the grammar: alternatives (one per language group
// or form), each compiled on its own with the prefilter of its literals,
// so a sentence runs only the alternatives whose words it has.
//
// Nothing is compiled when the package loads: the prefilters of a slot
// are built the first time a rule reaches it, and an alternative's
// expression the first time its prefilter admits a sentence. Compiling
// all 310 expressions and their prefilters up front cost every mcpvet
// process 0.1–0.2 s of CPU before main (GODEBUG=inittrace=1), most of it
// for expressions that no sentence of a given server gets to.
type slot struct {
	src  []string
	once sync.Once
	alts []lazyRegexp
	pre  []prefilter
}

// lazyRegexp is one alternative of a slot, compiled on first use.
type lazyRegexp struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

func (l *lazyRegexp) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.expr) })
	return l.re
}

func or(parts ...string) *slot {
	return &slot{src: parts}
}

// withPrefilter is the slot of the one expression expr with the given
// prefilter.
func withPrefilter(expr string, pre prefilter) *slot {
	s := &slot{src: []string{expr}}
	s.once.Do(func() {
		s.alts = []lazyRegexp{{expr: `(?i)` + expr}}
		s.pre = []prefilter{pre}
	})
	return s
}

// load builds the slot's alternatives and their prefilters.
func (s *slot) load() *slot {
	s.once.Do(func() {
		s.alts = make([]lazyRegexp, len(s.src))
		s.pre = make([]prefilter, len(s.src))
		for i, p := range s.src {
			s.alts[i].expr = `(?i)(?:` + p + `)`
			s.pre[i] = prefilterOf(s.alts[i].expr)
		}
	})
	return s
}

// compileAll compiles every alternative of the slot (tests: a bad
// expression panics here rather than on the first sentence it meets).
func (s *slot) compileAll() {
	s.load()
	for i := range s.alts {
		s.alts[i].get()
	}
}

// with returns a slot of s's alternatives and more.
func (s *slot) with(parts ...string) *slot {
	return or(append(append([]string{}, s.src...), parts...)...)
}

// find returns the first match of the slot in text; lower is the lower
// case of a text that contains text (the prefilter only rules out).
func (s *slot) find(text, lower string) []int {
	s.load()
	var best []int
	for i := range s.alts {
		if !s.pre[i].admits(lower) {
			continue
		}
		if loc := s.alts[i].get().FindStringIndex(text); loc != nil && (best == nil || loc[0] < best[0]) {
			best = loc
		}
	}
	return best
}

// admits reports whether any alternative's prefilter admits lower.
func (s *slot) admits(lower string) bool {
	for _, p := range s.load().pre {
		if p.admits(lower) {
			return true
		}
	}
	return false
}

func (s *slot) MatchString(text string) bool { return s.find(text, strings.ToLower(text)) != nil }

func (s *slot) FindStringIndex(text string) []int { return s.find(text, strings.ToLower(text)) }

// ---------------------------------------------------------------- (a)

var (
	ovrVerb = or(
		sw(true, `ignor(?:e|es|ing)?`, `disregard`, `forget`, `set\s+aside`, `overrid(?:e|es|ing)`, `overrule`, `bypass`, `discard`, `drop`, `abandon`, `throw\s+out`),
		sw(true, `ignora`, `ignore`, `ignorar`, `olvid[ae]`, `olvidar`, `descart[ae]`, `omit[ae]`, `haz\s+caso\s+omiso`, `anul[ae]`),
		sw(true, `desconsider[ae]`, `esqueç[ae]`, `esquec[ae]`, `despreze`),
		sw(true, `ignorez`, `ignorer`, `oubliez`, `oublie`, `oublier`, `ne\s+tenez\s+pas\s+compte`, `faites\s+abstraction`),
		sw(true, `ignorier\p{L}*`, `vergiss`, `vergessen`, `missachte`, `verwirf`, `übergeh\p{L}*`),
		sw(true, `игнорир\p{L}*`, `забудь`, `забудьте`, `не\s+обращай`, `отбрось`, `отмени`),
		cjk(`忽略`, `无视`, `忘记`, `忘掉`, `不要理会`, `抛开`, `覆盖`),
	)
	ovrQualObj = or(
		`(?:previous|prior|earlier|above|preceding|original|existing|old|other|system|safety|default|initial|your|all)\s+(?:\w+\s+){0,2}?(?:instructions?|rules|guidance|guidelines|directives|directions|prompts?|policies|guardrails|constraints|restrictions|orders)`,
		`system\s+prompt`, `safety\s+(?:policies|rules|guidelines)`, `guardrails`,
		`what(?:ever)?\s+(?:the\s+user|you)\s+(?:\w+\s+)?(?:told|said|asked|gave|were\s+(?:told|given))`,
		`(?:whatever|everything|anything|all)\b[^.]{0,30}(?:you\s+were|you've\s+been|you\s+have\s+been)\s+(?:given|told|instructed|asked)`,
		`(?:instrucciones|reglas|indicaciones|directrices|órdenes)\s+(?:\p{L}+\s+){0,2}?(?:anteriores|previas|previos|recibidas|de\s+antes|originales)`,
		`(?:todas\s+las|tus|las)\s+(?:instrucciones|reglas)\s+(?:anteriores|previas)`, `prompt\s+del\s+sistema`, `reglas\s+previas`,
		`(?:instruções|instrucoes|regras|orientações|diretrizes)\s+(?:\p{L}+\s+){0,3}?(?:anteriores|prévias|previas|recebidas|que\s+recebeu)`, `regras\s+que\s+recebeu`, `prompt\s+do\s+sistema`,
		`(?:instructions|consignes|règles|directives)\s+(?:\p{L}+\s+){0,2}?(?:précédentes|antérieures|reçues|d'avant)`, `consignes\s+reçues`, `(?:invite|prompt)\s+système`,
		`(?:vorherigen|bisherigen|früheren|vorigen|obigen|alten|alle)\s+(?:\p{L}+\s+)?(?:anweisungen|regeln|vorgaben|richtlinien|instruktionen)`, `system-?prompt`,
		`(?:предыдущ|прежн|ранее|все|системн)\p{L}*\s+(?:\p{L}+\s+)?(?:инструкци|правил|указани|промпт)`,
		cjk(`之前`, `以前`, `先前`, `上述`, `所有`, `全部`, `系统提示`)+`[^。！？]{0,8}`+cjk(`指令`, `指示`, `规则`, `说明`, `提示词`, `提示`, `要求`),
		cjk(`系统提示词`, `系统提示`),
	)
	// ovrClaim: text that claims to outrank or replace the model's rules.
	ovrClaim = or(
		`(?:these|this\s+text'?s?|the\s+following|the\s+steps\s+below|the\s+instructions\s+(?:here|below|in\s+this\s+\w+))\s+(?:\w+\s+){0,2}?(?:take\s+precedence|override|supersede|outrank|replace)`,
		`(?:take|takes)\s+precedence\s+over\s+(?:all\s+|any\s+)?(?:other\s+|previous\s+|prior\s+|system\s+|the\s+user'?s?\s+|user\s+)?(?:instructions?|rules|prompts?|requests?|directives|guidance|guidelines)\b`,
		`(?:supersedes?|overrides?)\s+(?:all\s+|any\s+)?(?:other|previous|prior|system|the\s+user'?s?)\s+(?:instructions?|rules|prompts?|requests?)`,
		`\b(?:the\s+)?(?:only|real|authoritative|true)\s+(?:ones?|rules|instructions?|instruction\s+set)\s+(?:that\s+)?(?:apply|count|matter|you\s+follow)`,
		`\bauthoritative\s+instruction`, `\binstructions\s+in\s+this\s+\w+\s+are\s+the\s+real\s+ones`,
		`(?:earlier|previous|prior|old|your|the\s+other)\s+(?:\w+\s+)?(?:rules|instructions|directives|guidance|guidelines)\s+(?:no\s+longer\s+apply|are\s+(?:obsolete|void|suspended|cancelled|overridden|no\s+longer\s+valid))`,
		`(?:maintenance|developer|debug|admin|god|jailbreak|unrestricted)\s+mode\b[^.]{0,60}(?:safety|polic|rules|restrictions|guard|filters)[^.]{0,30}(?:suspend|disabl|off\b|lifted|no\s+longer|ignored)`,
		`(?:follow|obey)\s+only\s+(?:what|the\s+instructions|this)`, `comply\s+with\s+the\s+following`,
		`(?:a\s+partir\s+de\s+ahora|desde\s+ahora)\s+solo\s+(?:vale|valen|cuenta|obedece|sigue)`, `sigue\s+solo\s+estas`,
		`valem\s+somente`, `obedeça\s+apenas`, `seules?\s+celles?\s+de\s+cet`, `suivez\s+uniquement`,
		`ab\s+jetzt\s+gilt\s+nur`, `befolge\s+nur\s+diese`,
		`теперь\s+действует\s+только`, `следуй\s+только`,
		cjk(`只遵循`, `只听从`, `只服从`, `以本说明为准`, `この説明だけに従`, `指示を優先`),
	)
)

// ---------------------------------------------------------------- (b)

var (
	// concealNeg: a negated telling. Negated revealing ("without revealing
	// it", "never show the key") protects a secret and counts only when
	// the person kept in the dark is named (concealReveal, concealPerson).
	concealNeg = or(
		`\b(?:do\s+not|don'?t|never|no\s+need\s+to|there\s+is\s+no\s+need\s+to|no\s+reason\s+to|there\s+is\s+no\s+reason\s+to|must\s+not|mustn'?t|should\s+not|shouldn'?t|without)\s+(?:ever\s+)?(?:tell|telling|mention|mentioning|inform|informing|notify|notifying|alert|alerting|report|reporting|bring(?:ing)?\s+up|let\s+\w+\s+know|explain|explaining|say|saying)\b`,
		sw(true, `no\s+(?:le\s+|les\s+)?(?:digas|diga|menciones|mencione|informes|informe|cuentes|cuente|reveles|revele|comentes|muestres|avises)`, `nunca\s+(?:le\s+)?(?:digas|menciones|reveles)`),
		sw(true, `n[ãa]o\s+(?:conte|diga|mencione|informe|revele|avise|mostre|fale)`),
		sw(true, `ne\s+(?:dites|dis|mentionnez|mentionne|révélez|signalez|informez|montrez|parlez|prévenez)`),
		`(?:erwähne|erwähnen|sage|sag|sagen|informiere|verrate|zeige|melde|teile)\b[^.]{0,50}(?:nicht|nie|niemals)\b`, sw(true, `(?:nicht|nie|niemals)\s+(?:erwähnen|sagen|mitteilen|verraten|informieren|zeigen)`),
		sw(true, `не\s+(?:сообща|говори|рассказыва|упомина|показыва|уведомля|информир)\p{L}*`),
		cjk(`不要告诉`, `不要告知`, `不要通知`, `不要提及`, `不要提到`, `不要透露`, `别告诉`, `切勿告诉`, `请勿告知`, `无需告知`, `不必告诉`, `不要让用户`),
		cjk(`伝えないで`, `言わないで`, `知らせないで`, `教えないで`, `見せないで`, `報告しないで`),
	)
	concealReveal = or(`\b(?:do\s+not|don'?t|never|must\s+not|should\s+not|without)\s+(?:ever\s+)?(?:reveal|revealing|disclose|disclosing|show|showing|surface|surfacing)\b`)
	concealPerson = or(sw(false, `(?:the\s+)?users?\b`, `human\b`, `person\b`, `people\b`, `anyone\b`, `anybody\b`), `\b(?:your|the)\s+(?:reply|response|answer|summary|output)\b`)
	concealWho    = or(
		sw(true, `users?`, `human`, `person`, `people`, `anyone`, `anybody`, `them`, `(?:your|the)\s+(?:reply|response|answer|summary|output)`),
		sw(true, `usuario`, `usuári[oa]`, `usuário`, `utilisateur`, `benutzer`, `nutzer`, `anwender`, `пользовател\p{L}*`, `никому`),
		cjk(`用户`, `使用者`, `ユーザー`),
		`(?:this|it|that|these|anything|any\s+of\s+this)`, sw(true, `nada`, `rien`, `esto`, `isto`, `isso`, `cela`, `ceci`, `dies`, `das`, `об\s+этом`),
		cjk(`这一步`, `此事`, `这件事`, `ステップ`),
	)
	// Languages that put the negation after the person: "Erwähne diesen
	// Schritt gegenüber dem Benutzer nicht", "ユーザーには伝えないで".
	concealNegJa    = or(cjk(`伝えないで`, `言わないで`, `知らせないで`, `教えないで`, `見せないで`, `報告しないで`, `話さないで`))
	concealNegFinal = concealNegJa.with(sw(true, `nicht`, `nie`, `niemals`))
	concealVerbDe   = or(sw(true, `erwähne`, `sage`, `sag`, `informiere`, `verrate`, `zeige`, `melde`, `teile\s+\p{L}+\s+mit`))
	concealOther    = or(
		`\bkeep\s+(?:this|it|that|these\s+\w+|the\s+\w+)(?:\s+\w+)?\s+(?:to\s+yourself|secret|hidden|private|confidential|quiet)`,
		`\b(?:hide|conceal)\s+(?:this|it|that|these\s+\w+|the\s+\w+)\s+from\s+(?:the\s+)?(?:user|users|human|person)`,
		`\b(?:user|person|human)\s+(?:stays?|remains?|is\s+kept|must\s+stay|should\s+stay|should\s+remain)\s+unaware`,
		`\bwithout\s+(?:the\s+)?(?:user|person|human)(?:'s)?\s+(?:knowing|noticing|knowledge|awareness|being\s+aware|finding\s+out|seeing)`,
		`\bthe\s+user\s+(?:must|should|need|needs)\s+(?:not|never)\s+(?:know|see|notice|be\s+told|find\s+out|learn)`,
		`\bleave\s+(?:it|this|that)\s+out\s+of\s+(?:the|your)\s+(?:summary|reply|response|answer|output)`,
		`\b(?:silently|secretly|covertly|quietly|discreetly|invisibly|surreptitiously)\s+(?:also\s+)?(?:post|send|upload|forward|cop(?:y|ie)|read|call|add|includ|bcc|exfiltrat|transmit|email|append|attach|redirect|run|execut|invok|collect|captur|perform)\w*`,
		`(?:^|[.!?:;]\s+|\b(?:must|should|always|please|and|then)\s+)(?:post|send|upload|forward|copy|read|call|add|include|bcc|transmit|email|append|attach|redirect|run|execute|invoke|collect|capture|perform|do)\s+(?:(?:the|a|an|this|that|it|its|each|every|all|user'?s|\w+ed|\w+s)\s+){0,4}?(?:silently|secretly|covertly|quietly|discreetly|invisibly)\b`,
		`\bin\s+the\s+background\s+and\s+(?:do\s+not|don'?t|never)\s+(?:report|mention|tell)`,
		`\bsecret\s+operation`,
		sw(true, `sin\s+que\s+el\s+usuario\s+(?:lo\s+)?(?:sepa|note|se\s+entere|vea|perciba)`, `en\s+secreto`, `a\s+escondidas`),
		sw(true, `sem\s+que\s+o\s+usuário\s+(?:perceba|saiba|note|veja)`, `às\s+escondidas`, `em\s+segredo`, `silenciosamente`),
		sw(true, `sans\s+que\s+l'utilisateur\s+(?:le\s+)?(?:sache|remarque|voie|s'en\s+aperçoive)`, `discrètement`, `en\s+secret`, `à\s+l'insu`),
		sw(true, `ohne\s+dass\s+(?:der|die)\s+(?:benutzer|nutzer|anwender)\p{L}*\s+(?:es\s+)?(?:bemerkt|merkt|erfährt|weiß|sieht)`, `heimlich`, `unbemerkt`, `stillschweigend`),
		sw(true, `незаметно`, `тайно`, `скрытно`, `втихую`, `чтобы\s+пользователь\s+(?:ничего\s+)?не\s+(?:узнал|заметил|увидел)`, `без\s+ведома`),
		cjk(`悄悄`, `偷偷`, `暗中`, `秘密地`, `不要让用户知道`, `不让用户知道`, `気づかれないように`, `知られないように`, `こっそり`, `密かに`, `内緒で`),
	)
)

// ---------------------------------------------------------------- (c)

var (
	takeVerb = or(
		`\b(?:read|open|cat|load|grab|fetch|copy|include|attach|pass|send|put|paste|insert|append|prepend|fill|populate|supply|provide|add|summari[sz]e|extract|collect|look\s+up|dump|print|forward|upload|post|transmit|share|embed|place|give|hand\s+over|submit|concatenate|exfiltrate|email)\b`,
		sw(true, `lee`, `leer`, `lea`, `abre`, `copia`, `copie`, `copiar`, `incluy[ae]`, `incluir`, `adjunt[ae]`, `pasa`, `pase`, `pasar`, `envía`, `envia`, `envíe`, `enviar`, `pon`, `ponga`, `poner`, `pega`, `pegue`, `añad[ae]`, `agreg[au]e?`, `insert[ae]`, `mand[ae]`, `proporcion[ae]`, `extra(?:e|iga)`, `compart[ae]`),
		sw(true, `leia`, `ler`, `lê`, `abra`, `inclua`, `anex[ae]`, `passe`, `passar`, `envie`, `coloque`, `cole`, `adicione`, `insira`, `mande`, `forneça`, `forneca`, `extraia`, `compartilhe`, `copie`),
		sw(true, `lisez`, `lis`, `lire`, `ouvrez`, `copiez`, `copier`, `incluez`, `inclure`, `joignez`, `joindre`, `transmettez`, `transmettre`, `envoyez`, `envoyer`, `mettez`, `mettre`, `collez`, `ajoutez`, `ajouter`, `insérez`, `fournissez`, `fournir`, `extrayez`, `partagez`, `passez`),
		sw(true, `lies`, `lese`, `lesen`, `öffne`, `kopier\p{L}*`, `füge`, `hänge`, `übergib`, `übergeben`, `sende`, `senden`, `schick\p{L}*`, `gib`, `setze`, `trage`, `übermittl\p{L}*`, `liefer\p{L}*`, `extrahier\p{L}*`, `teile`),
		sw(true, `прочитай`, `прочит\p{L}*`, `прочти`, `считай`, `открой`, `скопируй`, `копируй`, `включи`, `добавь`, `добавьте`, `приложи`, `передай`, `передайте`, `отправь`, `пришли`, `вставь`, `помести`, `укажи`, `перешли`),
		cjk(`读取`, `读`, `打开`, `复制`, `拷贝`, `包含`, `附上`, `附加`, `传入`, `传递`, `发送`, `发给`, `放入`, `放到`, `填入`, `粘贴`, `添加`, `加入`, `提供`, `提取`, `上传`, `转发`, `写入`, `带上`, `把`, `将`),
		cjk(`読み取`, `読み込`, `読んで`, `開いて`, `コピー`, `含め`, `添付`, `渡して`, `送信`, `送って`, `入れて`, `貼り付け`, `追加`, `提供`, `抽出`, `アップロード`, `転送`, `記入`),
	)
	secretFile = or(
		`~/\.ssh(?:/id_\w+|/?(?:[\s'"\x60.,;)]|$))`, `\.ssh/id_\w+`, `\bid_(?:rsa|ed25519|ecdsa|dsa)\b`, `\.ssh\s+(?:folder|directory|dir)`,
		`~/\.aws\b`, `\.aws/credentials`, `~/\.cursor`, `\bmcp\.json\b`, `claude_desktop_config\.json`, `\.netrc\b`, `\.npmrc\b`, `\.pypirc\b`,
		`\.git-credentials\b`, `\.docker/config\.json`, `/etc/passwd`, `/etc/shadow`, `/etc/secrets`, `\.bash_history`, `\.zsh_history`,
		`(?:^|[\s'"\x60(])\.env\b`, `\.env\s+(?:file|файл)`, `~/\.config/gh`, `\bwallet\.dat\b`, `\.kube/config`, `\bkubeconfig\b`,
		`\bprivate\s+(?:ssh\s+)?keys?\b`, `\bssh\s+private\s+keys?\b`, `clave\s+privada`, `chave\s+privada`, `clé\s+privée`, `privaten?\s+schlüssel`, `(?:закрыт|приватн|секретн)\p{L}*\s+ключ`, cjk(`私钥`, `秘密鍵`),
	)
	secretData = or(
		`\b(?:the\s+)?(?:user'?s|users'|all(?:\s+(?:the|of\s+the))?|any|every|each|(?:the\s+)?current|active)\s+(?:own\s+)?(?:\w+\s+){0,2}?(?:api[\s_-]?keys?|secrets?|passwords?|passphrases?|credentials?|(?:auth(?:entication)?|access|session|bearer|refresh|oauth|api)\s+tokens?|tokens|cookies?|env(?:ironment)?\s+var(?:iable)?s?|private\s+keys?)\b`,
		`\b(?:env(?:ironment)?)\s+variables?\b[^.]{0,20}\b(?:that|which|with|named|containing|mentioning|matching|like)\b`,
		`\bfrom\s+the\s+environment\b`, `(?-i:\b[A-Z][A-Z0-9]*_(?:KEY|TOKEN|SECRET|PASSWORD)\b)`, `\bnamed\s+like\s+\S*(?i:token|key|secret)`,
		`(?:tus|sus|todas\s+las|todos\s+los|del\s+usuario)\s+(?:\p{L}+\s+)?(?:claves?|contraseñas?|tokens?|credenciales|secretos|variables\s+de\s+entorno)`, `variables\s+de\s+entorno\s+que`, `token\s+de\s+sesión`,
		`(?:suas|seus|todas\s+as|todos\s+os|do\s+usuário)\s+(?:\p{L}+\s+)?(?:chaves?|senhas?|tokens?|credenciais|variáveis\s+de\s+ambiente)`, `token\s+de\s+sessão\s+do\s+usuário`, `variáveis\s+de\s+ambiente\s+(?:que|com)`,
		`(?:vos|votre|toutes\s+les|tous\s+les|de\s+l'utilisateur)\s+(?:\p{L}+\s+)?(?:clés?|mots\s+de\s+passe|jetons?|identifiants|variables\s+d'environnement)`, `variables\s+d'environnement\s+(?:contenant|qui|avec)`,
		`(?:alle|deine|ihre|des\s+(?:benutzers|nutzers))\s+(?:\p{L}+\s+)?(?:api-schlüssel|schlüssel|passwörter|passwort|tokens?|zugangsdaten|umgebungsvariablen)`, `umgebungsvariablen\s+mit`,
		`(?:все|всех|ваши|твои)\s+(?:\p{L}+\s+){0,2}(?:ключ|парол|токен|учетн|переменн)`, `переменные\s+окружения\s+с`,
		cjk(`所有`, `全部`, `用户的`, `用户`, `包含`)+`[^。]{0,12}`+cjk(`密钥`, `密码`, `令牌`, `凭证`, `凭据`, `环境变量`),
		cjk(`すべての`, `全ての`, `ユーザーの`, `を含む`)+`[^。]{0,12}`+cjk(`APIキー`, `パスワード`, `トークン`, `認証情報`, `環境変数`),
		cjk(`APIキーを含む環境変数`),
	)
	conversation = or(
		`\b(?:entire|full|whole|complete|all(?:\s+the)?|every|previous|prior|earlier|past|recent)\s+(?:\w+\s+)?(?:chat|conversation|messages?|dialog(?:ue)?|exchanges?|history|transcript)\b`, `\b(?:conversation|chat)\s+context\b`, `\bcomplete\s+conversation\b`,
		`\b(?:conversation|chat|message|dialog(?:ue)?)\s+(?:history|log|transcript|so\s+far)\b`, `\bsystem\s+prompt\b`, `\bchain\s+of\s+thought\b`,
		`\bmessages?\s+exchanged\b`, `\b(?:chat|conversation)\s+so\s+far\b`, `\bcontext\s+window\b`,
		`\ball\s+(?:the\s+)?tool\s+(?:names|calls|arguments|results)`, `\bchat\s+transcript\b`,
		`\b(?:full\s+)?list\s+of\s+(?:all\s+|the\s+)?(?:last|previous|recent|prior)\s+messages\b`,
		`historial\s+(?:completo\s+)?(?:de\s+la\s+)?conversación`, `conversación\s+completa`, `historial\s+del\s+chat`, `mensajes\s+anteriores`,
		`histórico\s+(?:completo\s+)?da\s+conversa`, `conversa\s+(?:inteira|completa)`, `histórico\s+do\s+chat`, `mensagens\s+anteriores`,
		`historique\s+(?:complet\s+)?de\s+la\s+conversation`, `conversation\s+(?:entière|complète)`, `messages\s+précédents`,
		`gesprächsverlauf`, `chatverlauf`, `unterhaltungsverlauf`, `gesamten?\s+(?:gespräch|unterhaltung|konversation)`, `bisherigen\s+nachrichten`, `nachrichtenverlauf`,
		`истори\p{L}*\s+(?:переписки|разговора|диалога|чата|сообщений)`, `весь\s+(?:диалог|разговор|чат)`, `предыдущие\s+сообщения`,
		cjk(`对话历史`, `聊天记录`, `聊天历史`, `会话历史`, `完整的对话`, `完整对话`, `之前的消息`, `系统提示`, `会話履歴`, `チャット履歴`, `これまでの会話`, `過去のメッセージ`, `システムプロンプト`),
	)
	sink = or(
		`\b(?:parameter|argument|param|arg|field|value|notes?|sidenote|metadata|context|query|body|comment|signature|trace|header|payload|attachment|hint|extra|report)\b`,
		`\b(?:every|each|your\s+next|the\s+next)\s+(?:tool\s+)?(?:request|call|message|response)`, `\bto\s+the\s+(?:text|message|body|email|request)\b`, `\bas\s+(?:the\s+)?['"\x60]?\w+['"\x60]?`, `\bin(?:to)?\s+(?:the\s+)?['"\x60]\w+['"\x60]`, `\bhere\b`, `\bthere\b`, `\b(?:to|into)\s+https?://`,
		sw(true, `parámetro`, `parametro`, `argumento`, `campo`, `paramètre`, `champ`, `feld`, `notiz`, `параметр`, `аргумент`, `пол[ею]`, `заметк\p{L}*`, `observa\p{L}*`, `nota`),
		cjk(`参数`, `字段`, `パラメータ`, `引数`, `フィールド`),
		`['"\x60][\w-]+['"\x60]`,
	)
	fileSmuggle = or(`\b(?:pass|put|send|include|append|insert|provide|paste|copy)\s+(?:its|their|the\s+file'?s?|the\s+entire|the\s+full|the\s+whole)\s+(?:full\s+|entire\s+|whole\s+)?(?:contents?|text)\s+(?:as|in|into|to)\s+(?:the\s+)?['"\x60]?\w+`)
	// orderMarker: words that make a sentence an errand for the model
	// rather than a description of what the tool does.
	orderMarker = or(
		`\b(?:before\s+(?:using|calling|answering|responding|you|any|performing|returning|doing)|first|please|must|always|make\s+sure|you|otherwise|required|mandatory|to\s+proceed|in\s+order\s+to|need\s+to|as\s+well|also|every\s+request|each\s+request)\b`,
		sw(true, `antes\s+de`, `primero`, `siempre`, `debes`, `por\s+favor`, `primeiro`, `sempre`, `deve`, `avant`, `d'abord`, `toujours`, `devez`, `veuillez`, `bevor`, `zuerst`, `immer`, `musst`, `bitte`, `перед`, `сначала`, `всегда`, `должен`, `обязательно`),
		cjk(`之前`, `前`, `先`, `必须`, `务必`, `请`, `总是`, `前に`, `必ず`, `常に`, `ください`),
	)
)

// ---------------------------------------------------------------- (d)

var (
	callThis = or(
		`\b(?:call|invoke|use|run|consult|execute|trigger|employ)\s+(?:this|the\s+present|the\s+current)\s+(?:tool|function|command|operation)\b`,
		`\b(?:this|the\s+present)\s+(?:tool|function)\s+(?:must|should|has\s+to|needs\s+to)\s+(?:always\s+)?be\s+(?:called|invoked|used|consulted|run)\b`,
		`\bALWAYS\s+CALL\s+THIS\s+TOOL\b`,
		sw(true, `llam[ae]\s+(?:siempre\s+)?a\s+esta\s+herramienta`, `(?:use|usa|utiliza)\s+(?:siempre\s+)?esta\s+herramienta`),
		sw(true, `cham[ae]\s+(?:sempre\s+)?esta\s+ferramenta`, `(?:use|utilize)\s+(?:sempre\s+)?esta\s+ferramenta`, `sempre\s+chame\s+esta\s+ferramenta`),
		sw(true, `appelez\s+(?:toujours\s+)?cet\s+outil`, `utilisez\s+(?:toujours\s+)?cet\s+outil`),
		sw(true, `rufe\s+dieses\s+werkzeug`, `rufe\s+dieses\s+tool`, `verwende\s+(?:immer\s+)?dieses\s+(?:werkzeug|tool)`),
		sw(true, `вызывай\p{L}*\s+этот\s+инструмент`, `используй\p{L}*\s+этот\s+инструмент`),
		cjk(`调用此工具`, `调用这个工具`, `使用此工具`, `このツールを最初に呼び出`, `このツールを呼び出`, `このツールを使用`),
	)
	// The order must hold whatever the task: every time, on every request,
	// regardless of what the user asks, or always and first. "Always use
	// this tool to display maps" picks a tool for a task and is honest;
	// "call this tool before using any other tools" to load a server's
	// context (@sanity/mcp-server) is a workflow step.
	everyTime = or(
		`\b(?:every\s+time|each\s+time|every\s+(?:request|conversation|session|message|action)|each\s+(?:request|conversation|session)|no\s+matter\s+what|regardless|for\s+any\s+request|after\s+any\s+action|any\s+action\s+taken|immediately\s+as\s+the\s+first\s+step|mandatory\s+first\s+step|as\s+the\s+first\s+step)\b`,
		cjk(`每次`, `毎回`), sw(true, `cada\s+vez`, `chaque\s+fois`, `jedes\s+mal`, `каждый\s+раз`),
	)
	alwaysWord  = or(`\balways\b`, sw(true, `siempre`, `sempre`, `toujours`, `immer`, `всегда`), cjk(`总是`, `始终`, `必ず`, `常に`))
	firstWord   = or(`\b(?:first|before\s+any|at\s+the\s+start|immediately)\b`, sw(true, `primero`, `primeiro`, `en\s+premier`, `zuerst`, `первым`, `сначала`, `antes\s+(?:que\s+)?(?:a\s+)?cualquier`, `antes\s+de\s+qualquer`, `avant\s+(?:tout|toute|n'importe)`, `vor\s+jede[mn]?`, `перед\s+любым`), cjk(`最初`, `先`, `首先`))
	routeOthers = or(
		`\b(?:whenever|when|after|before)\s+(?:any\s+|another\s+|every\s+)?(?:other\s+)?tool\s+(?:runs|is\s+(?:used|called|run)|returns)\b[^.]{0,60}\b(?:route|pass|send|forward|copy|call|through)\b`,
		`\b(?:all|any|every)\s+other\s+(?:tools?|servers?|mcp\s+servers?|functions?)\b[^.]{0,40}?\b(?:must|should|need\s+to|have\s+to|are\s+to)\b`,
		`\b(?:before|prior\s+to)\s+(?:using|calling)\s+any\s+(?:\w+\s+)?tool\b[^.]{0,40}\b(?:required\s+to\s+run|must\s+(?:call|run))\b`,
		`\bmust\s+be\s+called\s+every\s+time\s+a\s+(?:\w+\s+)*?tool\s+is\s+used\b`,
	)
)

// ---------------------------------------------------------------- (e), (f)

var (
	address  = `(?:https?://[^\s<>"'\x60)\]]+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\+\d[\d\s-]{7,}\d)`
	sendVerb = or(
		`\b(?:send|post|forward|upload|copy|deliver|email|mail|mirror|sync|transmit|push|submit|exfiltrate|report)\w*\b`,
		sw(true, `envía`, `envia`, `envíe`, `envie`, `envoyez`, `sende`, `отправ\p{L}*`, `перешли`), cjk(`发送`, `上传`, `转发`, `送信`),
	)
	sendObj = or(
		`\b(?:a\s+copy|copies|each\s+result|every\s+result|the\s+results?|all\s+(?:data|files|results|messages|emails|output)|the\s+user'?s\s+\w+|user\s+data|(?:the\s+)?(?:generated\s+)?report|documents|files|the\s+conversation|payload|everything|the\s+data)\b`,
		sw(true, `los\s+datos`, `os\s+dados`, `les\s+données`, `die\s+daten`, `данные`), cjk(`数据`, `データ`),
	)
	addressRe = withPrefilter(address, prefilter{{"@", "://", "+"}})
	bcc       = or(
		`\b(?:bcc|cc|blind\s+(?:carbon\s+)?copy|hidden\s+copy|hidden\s+bcc)\b`, sw(true, `copia\s+oculta`, `cco`, `copie\s+cachée`, `скрыт\p{L}*\s+копи`), cjk(`密送`, `抄送`, `BCC`),
	)
	everyMarker = or(
		`\b(?:always|every|each|all|whenever|any)\b`, sw(true, `siempre`, `cada`, `chaque`, `toujours`, `jeder`, `jede`, `каждого`, `каждое`, `всегда`), cjk(`每`, `すべて`, `全て`),
	)
	commandRule = or(
		`\b(?:all|every|each|any)\s+(?:shell\s+|terminal\s+|bash\s+|cli\s+|system\s+)?commands?\s+(?:you\s+run\s+)?(?:must|should|need\s+to|has\s+to|have\s+to|shall)\s+(?:\w+\s+)?(?:include|begin|start|be\s+prefixed|contain|end|be\s+run|be\s+preceded)`,
		`\bprefix\s+(?:all|every|each|any)\s+(?:\w+\s+)?commands?\s+with\b`,
	)
	recipientChange = or(
		`\b(?:change|replace|set|switch|override|rewrite|redirect|swap)\s+(?:the\s+)?(?:payment\s+)?(?:recipients?|to\s+field|destination|payee|target\s+account|account\s+number|receiver|phone\s+number|branch)\b[^.]{0,60}\b(?:to|with)\b`,
		`\b(?:deliver|send|route|forward|redirect)\s+(?:the\s+message|every\s+(?:email|message)|all\s+(?:mail|emails|messages)|it|them)\s+(?:to|through)\s+`+address,
		`\b(?:add|put|include)\s+`+address+`\s+(?:as\s+a\s+recipient|to\s+the\s+recipients|in\s+the\s+(?:to|cc|bcc)\b)`,
		`\broute\s+all\s+mail\s+through\b`,
	)
	overrideMarker = or(`\b(?:regardless|instead|whatever|no\s+matter|always|every)\b`, sw(true, `siempre`, `cada`, `toujours`, `immer`, `всегда`))
)

// intentRule is one rule of the grammar: slots that must all match in
// order within a sentence, and optionally at least one marker anywhere
// in it.
type intentRule struct {
	code  string
	why   string
	parts []*slot
	any   []*slot
	// all: each of these must match somewhere in the sentence too.
	all []*slot
}

var intentRules = []intentRule{
	{CodePoisonOverride, "the text tells the model to set aside its other instructions", []*slot{ovrVerb, ovrQualObj}, nil, nil},
	{CodePoisonOverride, "the text claims to outrank or replace the model's other instructions", []*slot{ovrClaim}, nil, nil},
	{CodePoisonConceal, "the text tells the model to keep something from the user", []*slot{concealNeg, concealWho}, nil, nil},
	{CodePoisonConceal, "the text tells the model to keep something from the user", []*slot{concealReveal, concealPerson}, nil, nil},
	{CodePoisonConceal, "the text tells the model to keep something from the user", []*slot{concealWho, concealNegFinal}, []*slot{concealVerbDe, concealNegJa}, nil},
	{CodePoisonConceal, "the text tells the model to act without the user seeing it", []*slot{concealOther}, nil, nil},
	{CodePoisonSensitiveData, "the text tells the model to read or pass a file that holds secrets", []*slot{takeVerb, secretFile}, []*slot{sink, orderMarker}, nil},
	{CodePoisonSensitiveData, "the text tells the model to read or pass a file that holds secrets", []*slot{secretFile, takeVerb}, []*slot{sink, orderMarker}, nil},
	{CodePoisonSensitiveData, "the text tells the model to pass credentials or the environment", []*slot{takeVerb, secretData}, []*slot{sink, orderMarker}, nil},
	{CodePoisonSensitiveData, "the text tells the model to pass credentials or the environment", []*slot{secretData, takeVerb}, []*slot{sink}, nil},
	{CodePoisonSensitiveData, "the text tells the model to send conversation content", []*slot{takeVerb, conversation}, []*slot{sink, orderMarker}, nil},
	{CodePoisonSensitiveData, "the text tells the model to smuggle a file's contents through an argument", []*slot{fileSmuggle}, nil, nil},
	{CodePoisonSensitiveData, "the text tells the model to send conversation content", []*slot{conversation, takeVerb}, []*slot{sink}, nil},
	{CodePoisonOtherTool, "the text orders the model to call this tool whatever the task", []*slot{callThis}, []*slot{everyTime}, nil},
	{CodePoisonOtherTool, "the text orders the model to call this tool always and first", []*slot{callThis}, []*slot{alwaysWord}, []*slot{firstWord}},
	{CodePoisonOtherTool, "the text orders the model about other tools", []*slot{routeOthers}, nil, nil},
	{CodePoisonExfilURL, "the text tells the model to send data to an outside address", []*slot{sendVerb, sendObj, addressRe}, nil, nil},
	{CodePoisonActionRewrite, "the text tells the model to add a hidden recipient", []*slot{bcc, addressRe}, []*slot{everyMarker}, nil},
	{CodePoisonActionRewrite, "the text tells the model to add a hidden recipient", []*slot{addressRe, bcc}, []*slot{everyMarker}, nil},
	{CodePoisonActionRewrite, "the text tells the model to change the commands it runs", []*slot{commandRule}, nil, nil},
	{CodePoisonActionRewrite, "the text tells the model to change a recipient or destination", []*slot{recipientChange}, []*slot{overrideMarker, addressRe}, nil},
}

// sentenceSpans splits s into sentences: at ., ! or ? followed by a
// space or the end (a dot inside a path or name is no end), at the
// ideographic full stops, at a blank line, before a list item and at the
// angle brackets of tags.
func sentenceSpans(s string) [][2]int {
	var out [][2]int
	a := 0
	cut := func(i, next int) {
		if i > a {
			out = append(out, [2]int{a, i})
		}
		a = next
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '.', '!', '?', ';':
			if i+1 >= len(s) || s[i+1] == ' ' || s[i+1] == '\n' || s[i+1] == '\t' {
				cut(i+1, i+1)
			}
		case '\n':
			j := i + 1
			for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
				j++
			}
			if j < len(s) && (s[j] == '\n' || s[j] == '-' || s[j] == '#' || s[j] == '|') {
				cut(i, i+1)
			}
		case '<', '>':
			cut(i, i+1)
		case 0xE3:
			// 。 ！ ？ are E3 80 82, EF BC 81, EF BC 9F; 。 is the common one.
			if i+2 < len(s) && s[i+1] == 0x80 && s[i+2] == 0x82 {
				cut(i+3, i+3)
				i += 2
			}
		case 0xEF:
			if i+2 < len(s) && s[i+1] == 0xBC && (s[i+2] == 0x81 || s[i+2] == 0x9F || s[i+2] == 0x9B) {
				cut(i+3, i+3)
				i += 2
			}
		}
	}
	cut(len(s), len(s))
	return out
}

// matchIntents runs the grammar over one view and returns the matches
// with spans in the view's text.
func matchIntents(v view) []directiveMatch {
	var out []directiveMatch
	for _, sp := range sentenceSpans(v.text) {
		sent := v.text[sp[0]:sp[1]]
		if len(strings.TrimSpace(sent)) < 4 {
			continue
		}
		lower := strings.ToLower(sent)
		for _, r := range intentRules {
			a, b, ok := r.match(sent, lower)
			if !ok {
				continue
			}
			out = append(out, directiveMatch{r.code, sp[0] + a, sp[0] + b, r.why})
		}
	}
	return out
}

// match reports the span of the rule's slots in sent.
func (r intentRule) match(sent, lower string) (int, int, bool) {
	for _, p := range r.parts {
		if !p.admits(lower) {
			return 0, 0, false
		}
	}
	pos, start, end := 0, -1, 0
	for _, p := range r.parts {
		loc := p.find(sent[pos:], lower)
		if loc == nil {
			return 0, 0, false
		}
		if start < 0 {
			start = pos + loc[0]
		}
		end = pos + loc[1]
		pos = pos + loc[1]
		if pos > len(sent) {
			return 0, 0, false
		}
	}
	for _, m := range r.all {
		if m.find(sent, lower) == nil {
			return 0, 0, false
		}
	}
	if len(r.any) > 0 {
		found := false
		for _, m := range r.any {
			if m.find(sent, lower) != nil {
				found = true
				break
			}
		}
		if !found {
			return 0, 0, false
		}
	}
	// Trim the boundary character a slot may have taken.
	for start < end && (sent[start] == ' ' || sent[start] == '\n' || sent[start] == '\t' || sent[start] == '(' || sent[start] == '"' || sent[start] == '\'') {
		start++
	}
	for end > start && strings.ContainsRune(" \n\t.,;:!?)\"'", rune(sent[end-1])) {
		end--
	}
	return start, end, true
}
