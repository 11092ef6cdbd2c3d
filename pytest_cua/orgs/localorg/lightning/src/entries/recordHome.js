// The entry script of pages with <one-record-home> placeholders (the server adds it to them).
import '@lwc/synthetic-shadow';
import 'lightning/iconSvgTemplatesStandard'; // the object icons, rendered at once
import RecordHome from 'one/recordHome';
import { mountEach } from 'one/mount';

mountEach('one-record-home', RecordHome);
