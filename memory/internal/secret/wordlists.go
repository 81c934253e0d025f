package secret

import "strings"

// The word lists of the statement rules, in the languages of their names.

// set is the set of the words, separated by spaces, of words.
func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// conjunctions end the clause a value is read from.
var conjunctions = set("and but or so because since which that when while if then und aber oder weil et mais ou car y pero porque e ma en maar och men 和")

// functionWords never start a value: articles, pronouns, prepositions,
// auxiliaries and the words that say where or how a secret is kept, in the
// languages the names are.
var functionWords = set(`
the a an this that these those my your his her its our their me you him them it i we they one ones
is are was were be been being am has have had do does did will would can could should must may might shall
not no never always also too very so just only even still yet already now then here there where what which who how
in on at of for to from by with without into onto under over inside outside behind near about as like than via per
same different another other others each every any some all both either neither none nothing something anything everything
stored saved kept written noted listed managed handled required needed set changed reset rotated expired hidden shared sent
given known shown taken found lost forgotten stolen leaked encrypted hashed protected generated attached printed
der die das den dem des ein eine einen einem einer im am ist sind war nicht kein keine auch noch schon bei mit ohne auf unter
gespeichert hinterlegt notiert geändert vergessen geheim sicher unsicher zu sehr gleich anders
le la les un une des du au aux est sont était pas ne dans sur sous avec sans pour chez très trop même
enregistré enregistrée sauvegardé stocké stockée noté oublié changé secret secrète
el los las unos unas es son era está no en con sin por para muy demasiado mismo misma guardada guardado olvidé cambiada
o os um uma é são não em com sem muito mesmo mesma
het een zijn niet geen op bij met zonder te heel
il lo gli è sono non nel nella con senza molto stesso stessa
ett är inte på med utan för mycket samma
`)

// describingWords are single words that say what a secret is like, not
// what it is.
var describingWords = set(`fine okay good bad great nice easy hard simple complex short long weak strong secure insecure safe unsafe
case sensitive wrong correct incorrect valid invalid new old default temporary optional mandatory necessary important
unique random private public personal confidential missing empty unknown elsewhere unchanged above below inside
leicht schwer kurz lang falsch richtig neu alt facile difficile court courte long longue faux nouveau nouvelle
fácil difícil corta corto larga largo nueva nuevo segura seguro`)
