// The entry script of pages with <one-lookup> placeholders (the server adds it to them).
import '@lwc/synthetic-shadow';
import 'lightning/iconSvgTemplatesStandard'; // the object icons of the results, rendered at once
import Lookup from 'one/lookup';
import { mountEach } from 'one/mount';

mountEach('one-lookup', Lookup);
