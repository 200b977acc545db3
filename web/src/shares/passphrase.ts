/**
 * A passphrase a person can read out and type (issue #28: a shared link's password has at least 8
 * characters): four words drawn with the browser's cryptographic random source from 256 short,
 * distinct, easily spelt English words, 32 bits in all. Guessing is throttled on the server (10 wrong
 * tries per address and 50 per link every 15 minutes), so 2^32 possibilities outlast any attacker.
 */
const WORDS = (
  'acorn amber anchor apple april arrow atlas autumn badge baker bamboo banjo basil beach beacon berry ' +
  'birch bison blossom bottle breeze brick bridge brook bubble bucket cabin cactus camel candle canoe canyon ' +
  'carbon cargo carpet castle cedar cellar cherry chess cider circle citrus clover cobalt cocoa comet copper ' +
  'coral cotton cougar crane crater crystal cactus daisy dancer delta denim desert diesel dolphin dragon ' +
  'drum eagle echo ember emerald engine falcon fern ferry fiddle fjord flame flute forest fossil fox garden ' +
  'garlic gazelle geyser ginger glacier globe goose granite grape gravel guitar hammer harbor harvest hazel ' +
  'heron hickory honey horizon husky igloo indigo island ivory jacket jade jasmine jelly jigsaw jungle kayak ' +
  'kettle kiwi koala ladder lagoon lantern laser lemon lentil lily linen lizard lobster locket lotus magnet ' +
  'mango maple marble meadow melon meteor mint mirror mocha monsoon mosaic moss muffin napkin nectar needle ' +
  'nickel noodle nutmeg oasis ocean olive onyx opal orbit orchid otter oyster paddle panda paper parrot ' +
  'pebble pepper piano pickle pilot pine planet plum pocket polar pony poppy prairie pretzel puffin pumpkin ' +
  'quartz quill rabbit radar raven reef ribbon river robin rocket rose ruby saddle saffron salmon sapphire ' +
  'scarf shadow shell silver sketch sled slope snow socket sonnet spark spider spruce squash star stone ' +
  'storm sugar summit sunset swan tablet tango teapot thistle thunder tiger timber tomato topaz tulip tundra ' +
  'turtle umbrella valley velvet violet volcano waffle walnut walrus wave willow window winter wizard wolf ' +
  'yarrow yogurt zebra zephyr zinc badger beetle almond aspen biscuit blanket butter caramel chestnut ' +
  'cinnamon cloud compass cricket crimson'
).split(' ');

export const PASSPHRASE_WORDS: readonly string[] = [...new Set(WORDS)].slice(0, 256);

/** Four random words joined by spaces, e.g. "maple orbit velvet heron". */
export function suggestPassphrase(random: (values: Uint32Array<ArrayBuffer>) => Uint32Array<ArrayBuffer> = (v) => crypto.getRandomValues(v)): string {
  const picks = random(new Uint32Array(4));
  return [...picks].map((n) => PASSPHRASE_WORDS[n % PASSPHRASE_WORDS.length]).join(' ');
}
